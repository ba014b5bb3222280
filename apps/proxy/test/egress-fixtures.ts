// Shared by the egress tests: loopback HTTPS upstreams with their own test CA (so a client can tell
// whose certificate it got), the egress handler mounted on a bare http.Server, plans and events.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { EventWriter, type ChaosEvent } from '@intutic/events';
import type { Plan, PlanFault } from '@intutic/faults';
import { createCertificateAuthority } from '../src/egress/ca.ts';
import { createEgressHandler, type EgressHandler, type EgressOptions } from '../src/egress/index.ts';
import { scratchDir } from '@intutic/testkit';

export const CANARY = 'E-INTUTIC-0badf00d';

const createdDirs: string[] = [];

export function tempDir(prefix = 'intutic-egress-'): string {
  const dir = scratchDir(prefix);
  createdDirs.push(dir);
  return dir;
}

/** Remove every directory tempDir made in this test file (call from afterAll). */
export function removeTempDirs(): void {
  for (const dir of createdDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

export function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

export interface TestUpstream {
  port: number;
  /** The upstream's own CA: trusted by the proxy for upstreams, never by clients of intercepted hosts. */
  caPem: string;
  requests: Array<{ method: string; url: string; host: string | undefined; authorization: string | undefined }>;
  close(): Promise<void>;
}

/** An HTTPS server that presents a certificate for whatever name the client asks for (SNI is required). */
export async function startTestUpstream(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestUpstream> {
  const ca = createCertificateAuthority({ commonName: 'egress test upstream CA' });
  const requests: TestUpstream['requests'] = [];
  const server = createHttpsServer({ SNICallback: (name, cb) => cb(null, ca.contextFor(name)) }, (req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', host: req.headers.host, authorization: req.headers.authorization });
    handler(req, res);
  });
  const port = await listen(server);
  return { port, caPem: ca.caCertPem, requests, close: () => closeServer(server) };
}

export interface TestProxy {
  port: number;
  url: string;
  handler: EgressHandler;
  logs: string[];
  connects: number;
  eventsPath: string;
  events(): ChaosEvent[];
  close(): Promise<void>;
}

/** The egress handler on its own http.Server, the way the proxy server mounts it. */
export async function startEgressProxy(options: Partial<EgressOptions> & { eventsPath?: string } = {}): Promise<TestProxy> {
  const eventsPath = options.eventsPath ?? join(tempDir(), 'events.jsonl');
  const logs: string[] = [];
  const handler = await createEgressHandler({
    plan: null,
    events: new EventWriter(eventsPath),
    hostOverrides: {},
    log: (line) => logs.push(line),
    ...options,
  });
  const state = { connects: 0 };
  const server = createServer((req, res) => handler.handleForwardRequest(req, res));
  server.on('connect', (req, socket, head) => {
    state.connects += 1;
    handler.handleConnect(req, socket, head);
  });
  const port = await listen(server);
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    handler,
    logs,
    get connects() {
      return state.connects;
    },
    eventsPath,
    events: () => readEvents(eventsPath),
    async close() {
      await handler.close();
      await closeServer(server);
    },
  };
}

export function readEvents(path: string): ChaosEvent[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as ChaosEvent);
}

export function makePlan(faults: Array<Pick<PlanFault, 'id' | 'match'> & Partial<PlanFault>>, canary = CANARY): Plan {
  return {
    schema_version: 1,
    experiment: 'egress-test',
    run_id: 'run-egress-test',
    canary,
    faults: faults.map((f, index) => ({ index, after_calls: 0, times: null, options: {}, ...f })),
  };
}

export interface Tunnel {
  status: number;
  /** The proxy's whole answer when it refused the CONNECT (status line, headers, body). */
  response: string;
  socket: Socket;
}

/** Send a raw CONNECT line (malformed ones too) and return the socket once the proxy has answered. */
export function openTunnel(proxyPort: number, target: string): Promise<Tunnel> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: proxyPort });
    let buffer = Buffer.alloc(0);
    let status = 0;
    const onData = (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const end = buffer.indexOf('\r\n\r\n');
      if (status === 0 && end >= 0) {
        status = Number(/^HTTP\/1\.1 (\d{3})/.exec(buffer.toString('latin1'))?.[1] ?? -1);
        if (status === 200) {
          socket.off('data', onData);
          const rest = buffer.subarray(end + 4);
          if (rest.length > 0) socket.unshift(rest);
          resolve({ status, response: buffer.subarray(0, end + 4).toString(), socket });
        }
      }
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.once('close', () => resolve({ status, response: buffer.toString(), socket }));
    socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
  });
}

/** TLS inside a tunnel. With `ca`, the peer must verify against it; without, anything is accepted. */
export function startTls(socket: Socket, servername: string, ca?: string): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const tls = tlsConnect({ socket, servername, ...(ca === undefined ? { rejectUnauthorized: false } : { ca }) });
    tls.once('secureConnect', () => resolve(tls));
    tls.once('error', reject);
  });
}

export interface RawResponse {
  status: number;
  reason: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One HTTP/1.1 request over an already open connection (a tunnel, TLS or not). */
export function requestOver(
  socket: Duplex,
  opts: { host: string; path?: string; method?: string; headers?: Record<string, string>; body?: Buffer },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    // No agent: only then does http.request use createConnection.
    const req = httpRequest(
      { createConnection: () => socket, host: opts.host, path: opts.path ?? '/', method: opts.method ?? 'GET', headers: { host: opts.host, ...opts.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, reason: res.statusMessage ?? '', headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** An absolute-form request to the proxy itself, the way curl sends plain-HTTP proxy requests. */
export function requestAbsolute(proxyPort: number, url: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: proxyPort, path: url, agent: false, headers: { host: URL.canParse(url) ? new URL(url).host : 'localhost', ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, reason: res.statusMessage ?? '', headers: res.headers, body: Buffer.concat(chunks) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await closeServer(server);
  return port;
}

export function issuerCn(tls: TLSSocket): string | undefined {
  const issuer = tls.getPeerCertificate().issuer as unknown as Record<string, string> | undefined;
  return issuer?.CN;
}
