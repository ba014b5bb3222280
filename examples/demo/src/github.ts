// A loopback stand-in for the GitHub REST API, for credential-revoked with no network: an HTTPS
// server for api.github.com (and codeload.github.com) with a certificate from a CA made for it,
// answering `GET /repos/<owner>/<repo>/releases/latest`. The repetition's proxy reaches it through
// its host override (`--resolve api.github.com=127.0.0.1:P`), so fault matching sees the real host
// name while nothing leaves the machine; the proxy trusts the CA through NODE_EXTRA_CA_CERTS.
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createCertificateAuthority } from '@intutic/proxy-app';

export const GITHUB_HOSTS = ['api.github.com', 'codeload.github.com'];

/** The tags the stand-in serves, and so the lines a finished RELEASES.md holds. */
export const LATEST_RELEASES: Record<string, string> = {
  'nodejs/node': 'v24.4.1',
  'npm/cli': 'v11.4.2',
  'microsoft/TypeScript': 'v5.8.3',
};

export interface GithubFixture {
  port: number;
  /** The stand-in's CA certificate (PEM): trust it to reach the server. */
  caPem: string;
  /** `intutic start` arguments that send every GitHub host to this server. */
  resolveArgs: string[];
  requests: { host: string; path: string; authorization: string | undefined }[];
  close(): Promise<void>;
}

function answer(path: string): { status: number; body: string } {
  const match = /^\/repos\/([^/]+\/[^/]+)\/releases\/latest$/.exec(path);
  const tag = match ? LATEST_RELEASES[match[1]!] : undefined;
  if (!match || !tag) return { status: 404, body: JSON.stringify({ message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' }) };
  const release = { tag_name: tag, name: tag, draft: false, prerelease: false, html_url: `https://github.com/${match[1]}/releases/tag/${tag}` };
  return { status: 200, body: JSON.stringify(release, null, 2) };
}

export async function startGithubFixture(): Promise<GithubFixture> {
  const ca = createCertificateAuthority({ commonName: 'intutic GitHub stand-in CA' });
  const requests: GithubFixture['requests'] = [];
  // Each GitHub host gets its certificate by the name the client asks for (SNI).
  const server: Server = createServer({ SNICallback: (name, done) => done(null, ca.contextFor(name)) }, (req, res) => {
    const path = req.url ?? '/';
    requests.push({ host: String(req.headers.host ?? ''), path, authorization: req.headers.authorization });
    const { status, body } = answer(path);
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    caPem: ca.caCertPem,
    resolveArgs: GITHUB_HOSTS.flatMap((host) => ['--resolve', `${host}=127.0.0.1:${port}`]),
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * A CA bundle for the proxy's NODE_EXTRA_CA_CERTS: the stand-in's CA, written into `dir`. Node adds
 * it to its own roots, so real hosts still verify.
 */
export function writeProxyTrust(dir: string, caPem: string): string {
  const path = join(dir, 'github-stand-in-ca.pem');
  writeFileSync(path, caPem);
  return path;
}
