// Shared pieces of the sandbox integration tests: one engine and image per suite (built with the
// test build settings so every suite reuses the same tag), servers on the bridge gateway, the docker CLI.
import { execFile, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, type Server } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { sandboxBuildEnv, scratchDir } from '@intutic/testkit';
import { checkEngine, ensureSandboxImage, hostGatewayAddress, removeSandboxContainers, type Engine, type ImageVariant } from '../src/index.ts';

export const CLI_VERSION: string = (JSON.parse(readFileSync(new URL('../../../apps/cli/package.json', import.meta.url), 'utf8')) as { version: string })
  .version;

export interface SandboxFixture {
  engine: Engine;
  image: string;
  gateway: string;
}

export async function sandboxFixture(variant: ImageVariant = 'base'): Promise<SandboxFixture> {
  const engine = await checkEngine();
  const image = await ensureSandboxImage(engine, {
    version: CLI_VERSION,
    variant,
    env: sandboxBuildEnv(),
    onProgress: (line) => process.stderr.write(`[image] ${line}\n`),
  });
  return { engine, image, gateway: await hostGatewayAddress(engine) };
}

export function tempWorkspace(prefix = 'intutic-sandbox-test-'): string {
  return scratchDir(prefix);
}

/** A suite's sandboxes: labelled as its own, on workspaces it makes, all of them removed when it ends. */
export interface LabelledSuite {
  /** The suite's fixture, once its beforeAll has run. */
  fx(): SandboxFixture;
  label: { 'dev.intutic.test': string };
  /** A fresh workspace, removed when the suite ends. */
  workspace(): string;
  /** The ids of the containers carrying the suite's label, one per line ('' when none). */
  containers(): Promise<string>;
}

/** Registers the suite's beforeAll (the fixture) and afterAll (its containers and workspaces removed); call it inside its describe. */
export function labelledSuite(name: string, variant: ImageVariant = 'base'): LabelledSuite {
  const label = { 'dev.intutic.test': `${name}-${process.pid}` };
  const workspaces: string[] = [];
  let fixture: SandboxFixture | undefined;
  beforeAll(async () => {
    fixture = await sandboxFixture(variant);
  }, 600_000);
  afterAll(async () => {
    if (fixture) await removeSandboxContainers(fixture.engine, label).catch(() => 0);
    for (const dir of workspaces) rmSync(dir, { recursive: true, force: true });
  });
  return {
    fx: () => fixture!,
    label,
    workspace: () => {
      const dir = tempWorkspace();
      workspaces.push(dir);
      return dir;
    },
    containers: async () => (await docker(['ps', '-a', '-q', '--filter', `label=dev.intutic.test=${label['dev.intutic.test']}`])).stdout.trim(),
  };
}

export interface Listening {
  port: number;
  close(): Promise<void>;
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      (server as Server & { closeAllConnections?: () => void }).closeAllConnections?.();
    });
}

/** An HTTP server on host:0 answering every request with `body`. */
export async function httpServer(host: string, body: string): Promise<Listening> {
  const server = createHttpServer((_req, res) => res.end(body));
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { port: (server.address() as { port: number }).port, close: closer(server) };
}

/** A TCP server on host:port (any free port by default) that accepts and counts connections; rejects when it cannot listen. */
export async function tcpServer(host: string, port = 0): Promise<Listening & { connections: () => number }> {
  let connections = 0;
  const server = createTcpServer((socket) => {
    connections++;
    socket.end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return { port: (server.address() as { port: number }).port, close: closer(server), connections: () => connections };
}

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

export function docker(args: string[], input?: string): Promise<Ran> {
  return new Promise((resolve) => {
    const child = execFile('docker', args, { maxBuffer: 32 * 1024 * 1024, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** Run a command and return its output, for `ps` and `grep` on the host. */
export function run(command: string, args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** A throwaway CA and a server certificate it signed for `ip`, as the proxy's TLS interception makes. */
export async function testCertificates(ip: string): Promise<{ caPem: string; certPem: string; keyPem: string }> {
  const forge = (await import('node-forge')).default;
  const make = (subject: string, issuer: { cert?: import('node-forge').pki.Certificate; key?: import('node-forge').pki.rsa.PrivateKey }, ca: boolean) => {
    const keys = forge.pki.rsa.generateKeyPair(2048);
    const cert = forge.pki.createCertificate();
    cert.publicKey = keys.publicKey;
    cert.serialNumber = `0${randomHex()}`;
    cert.validity.notBefore = new Date(Date.now() - 60_000);
    cert.validity.notAfter = new Date(Date.now() + 86_400_000);
    cert.setSubject([{ name: 'commonName', value: subject }]);
    cert.setIssuer(issuer.cert ? issuer.cert.subject.attributes : [{ name: 'commonName', value: subject }]);
    cert.setExtensions(
      ca
        ? [
            { name: 'basicConstraints', cA: true, critical: true },
            { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
          ]
        : [
            { name: 'subjectAltName', altNames: [{ type: 7, ip }] },
            { name: 'extKeyUsage', serverAuth: true },
          ],
    );
    cert.sign(issuer.key ?? keys.privateKey, forge.md.sha256.create());
    return { cert, keys };
  };
  const ca = make('intutic test CA', {}, true);
  const server = make(ip, { cert: ca.cert, key: ca.keys.privateKey }, false);
  return {
    caPem: forge.pki.certificateToPem(ca.cert),
    certPem: forge.pki.certificateToPem(server.cert),
    keyPem: forge.pki.privateKeyToPem(server.keys.privateKey),
  };
}

function randomHex(): string {
  return Math.floor(Math.random() * 0xffffffff)
    .toString(16)
    .padStart(8, '0');
}
