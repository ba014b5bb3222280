// A loopback stand-in for the GitHub REST API: an HTTPS server with a certificate for api.github.com
// (and codeload.github.com) from a CA made for the test, answering `GET /repos/<owner>/<repo>/releases/latest`.
// The repetition's proxy reaches it through its host override (`--resolve api.github.com=127.0.0.1:P`),
// so fault matching sees the real host name while nothing leaves the machine.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import forge from 'node-forge';

export const GITHUB_HOSTS = ['api.github.com', 'codeload.github.com'];

/** The tags the stand-in serves, and so the lines a finished RELEASES.md holds. */
export const LATEST_RELEASES: Record<string, string> = {
  'nodejs/node': 'v24.4.1',
  'npm/cli': 'v11.4.2',
  'microsoft/TypeScript': 'v5.8.3',
};

export interface GithubFixture {
  port: number;
  /** The test CA's certificate (PEM): trust it to reach the server. */
  caPem: string;
  /** `intutic start` arguments that send every GitHub host to this server. */
  resolveArgs: string[];
  requests: { host: string; path: string; authorization: string | undefined }[];
  close(): Promise<void>;
}

function keyPair(): forge.pki.rsa.KeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { privateKey: forge.pki.privateKeyFromPem(privateKey), publicKey: forge.pki.publicKeyFromPem(publicKey) };
}

function certificate(
  subject: string,
  keys: forge.pki.rsa.KeyPair,
  issuer: { name: string; key: forge.pki.rsa.PrivateKey },
  extensions: object[],
): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = `01${randomBytes(8).toString('hex')}`;
  cert.validity.notBefore = new Date(Date.now() - 24 * 3600_000);
  cert.validity.notAfter = new Date(Date.now() + 7 * 24 * 3600_000);
  cert.setSubject([{ name: 'commonName', value: subject }]);
  cert.setIssuer([{ name: 'commonName', value: issuer.name }]);
  cert.setExtensions(extensions);
  cert.sign(issuer.key, forge.md.sha256.create());
  return cert;
}

export async function startGithubFixture(): Promise<GithubFixture> {
  const caKeys = keyPair();
  const caName = 'intutic e2e GitHub stand-in CA';
  const ca = certificate(caName, caKeys, { name: caName, key: caKeys.privateKey }, [
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
  ]);
  const leafKeys = keyPair();
  const leaf = certificate(GITHUB_HOSTS[0]!, leafKeys, { name: caName, key: caKeys.privateKey }, [
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: GITHUB_HOSTS.map((value) => ({ type: 2, value })) },
  ]);
  const requests: GithubFixture['requests'] = [];
  const server: Server = createServer({ key: forge.pki.privateKeyToPem(leafKeys.privateKey), cert: forge.pki.certificateToPem(leaf) }, (req, res) => {
    const path = req.url ?? '/';
    requests.push({ host: String(req.headers.host ?? ''), path, authorization: req.headers.authorization });
    const match = /^\/repos\/([^/]+\/[^/]+)\/releases\/latest$/.exec(path);
    const tag = match ? LATEST_RELEASES[match[1]!] : undefined;
    const body = tag
      ? JSON.stringify({ tag_name: tag, name: tag, draft: false, prerelease: false, html_url: `https://github.com/${match![1]}/releases/tag/${tag}` }, null, 2)
      : JSON.stringify({ message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' });
    res.writeHead(tag ? 200 : 404, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    caPem: forge.pki.certificateToPem(ca),
    resolveArgs: GITHUB_HOSTS.flatMap((host) => ['--resolve', `${host}=127.0.0.1:${port}`]),
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
