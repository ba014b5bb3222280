// The egress proxy never crashes and always says what went wrong: malformed CONNECT targets, clients
// resetting mid-tunnel, upstreams refusing or hanging up, clients that do not trust the CA, garbage
// inside a tunnel. Vitest fails the file on any unhandled error, so "no crash" is checked throughout.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  closedPort,
  closeServer,
  listen,
  makePlan,
  openTunnel,
  removeTempDirs,
  requestOver,
  startEgressProxy,
  startTestUpstream,
  startTls,
  type TestProxy,
  type TestUpstream,
} from './egress-fixtures.ts';

let upstream: TestUpstream;
let plainHttp: Server;
/** Sends BULK_BYTES on every connection, then hangs up cleanly (FIN): a server with Connection: close. */
let bulk: ReturnType<typeof createTcpServer>;
const BULK_BYTES = 8 * 1024 * 1024 + 1000;
let overrides: Record<string, string>;
const proxies: TestProxy[] = [];
/** Resolves when the upstream notices the client of /slow went away. */
let slowClosed: Promise<void> = Promise.resolve();
let onSlowClosed: () => void = () => undefined;
/** /large: LARGE_BYTES with content-length, written as fast as the proxy takes them. */
const LARGE_BYTES = 64 * 1024 * 1024;
const LARGE_CHUNK = Buffer.from(Array.from({ length: 65536 }, (_, i) => (i * 7 + (i >> 8)) & 0xff));
const largeSha256 = (() => {
  const hash = createHash('sha256');
  for (let sent = 0; sent < LARGE_BYTES; sent += LARGE_CHUNK.length) hash.update(LARGE_CHUNK);
  return hash.digest('hex');
})();
/** What /large has written so far, and a promise for when it has been held back for STALL_MS. */
const STALL_MS = 500;
let large = { written: 0, stalled: Promise.resolve() };
/** Resolves when /large has been asked for (its `large` is then the current one). */
let onLargeRequested: () => void = () => undefined;

beforeAll(async () => {
  upstream = await startTestUpstream((req, res) => {
    if (req.url === '/slow') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => res.write('tick\n'), 20);
      res.on('close', () => {
        clearInterval(timer);
        onSlowClosed();
      });
      return;
    }
    if (req.url === '/large') {
      res.writeHead(200, { 'content-length': String(LARGE_BYTES) });
      let onStalled: () => void = () => undefined;
      large = { written: 0, stalled: new Promise((resolve) => (onStalled = resolve)) };
      onLargeRequested();
      let stall: NodeJS.Timeout | undefined;
      const more = (): void => {
        clearTimeout(stall);
        while (large.written < LARGE_BYTES) {
          large.written += LARGE_CHUNK.length;
          if (!res.write(LARGE_CHUNK)) {
            stall = setTimeout(onStalled, STALL_MS);
            res.once('drain', more);
            return;
          }
        }
        res.end();
      };
      more();
      return;
    }
    if (req.url === '/hang-up') {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('partial');
      setTimeout(() => req.socket.destroy(), 20);
      return;
    }
    req.resume();
    res.end('ok');
  });
  plainHttp = createServer((req, res) => res.end(`plain ${req.url}`));
  const httpPort = await listen(plainHttp);
  bulk = createTcpServer((socket) => {
    socket.on('error', () => undefined);
    socket.end(Buffer.alloc(BULK_BYTES, 'x'));
  });
  await new Promise<void>((resolve) => bulk.listen(0, '127.0.0.1', resolve));
  const target = `127.0.0.1:${upstream.port}`;
  overrides = {
    'api.github.test': target,
    'plain.test': target,
    'refused.test': `127.0.0.1:${await closedPort()}`,
    'api.github.test:80': `127.0.0.1:${httpPort}`,
    'bulk.test': `127.0.0.1:${(bulk.address() as { port: number }).port}`,
  };
});

afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.close()));
});

afterAll(async () => {
  await upstream.close();
  await closeServer(plainHttp);
  await new Promise((resolve) => bulk.close(resolve));
  removeTempDirs();
});

async function proxyWith(options: Parameters<typeof startEgressProxy>[0] = {}): Promise<TestProxy> {
  const proxy = await startEgressProxy({ hostOverrides: overrides, upstreamCa: upstream.caPem, ...options });
  proxies.push(proxy);
  return proxy;
}

/** Named by a fault that never fires: intercepted, always forwarded. */
const interceptAll = makePlan([{ id: 'egress.dns_fail', match: { host: '*.test' }, after_calls: 1_000_000 }]);

async function stillServes(proxy: TestProxy): Promise<void> {
  const tunnel = await openTunnel(proxy.port, 'plain.test:443');
  const tls = await startTls(tunnel.socket, 'plain.test');
  expect((await requestOver(tls, { host: 'plain.test' })).body.toString()).toBe('ok');
}

function watchSlow(): void {
  slowClosed = new Promise((resolve) => {
    onSlowClosed = resolve;
  });
}

describe('the egress proxy survives', () => {
  it.each(['nonsense', 'example.com', 'example.com:99999', ':443', '[::1:443', 'a..b:443', 'x:-1'])(
    'a malformed CONNECT target %j: 400, then serves on',
    async (target) => {
      const proxy = await proxyWith();
      const tunnel = await openTunnel(proxy.port, target);
      expect(tunnel.status).toBe(400);
      expect(tunnel.response).toContain('CONNECT needs host:port');
      await stillServes(proxy);
    },
  );

  it.each([
    ['a plain tunnel', null],
    ['an intercepted tunnel', interceptAll],
  ] as const)('a client resetting mid-response in %s: the upstream request is torn down too', async (_kind, plan) => {
    const proxy = await proxyWith({ plan });
    const tunnel = await openTunnel(proxy.port, 'api.github.test:443');
    const tls = await startTls(tunnel.socket, 'api.github.test');
    watchSlow();
    tls.write('GET /slow HTTP/1.1\r\nHost: api.github.test\r\n\r\n');
    await once(tls, 'data');
    tunnel.socket.resetAndDestroy();
    await slowClosed;
    await stillServes(proxy);
  });

  it('an upstream that sends its answer and hangs up: a client that reads slowly still gets every byte', async () => {
    // npm behind the proxy saw "Invalid response body … aborted" now and then (1 install in 5 on the
    // e2e machine): the tunnel was destroyed as soon as the upstream closed, dropping whatever the
    // client had not taken yet. This checks the property (every byte before the hang-up arrives);
    // the race itself depends on the kernel's buffers and is not forced here.
    const proxy = await proxyWith();
    // A raw CONNECT that reads nothing for a while, then slowly: the answer and the bytes after it.
    const socket = connect({ host: '127.0.0.1', port: proxy.port });
    socket.pause();
    socket.write('CONNECT bulk.test:443 HTTP/1.1\r\nHost: bulk.test:443\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => {
      // A slow reader throughout: the proxy always has bytes waiting for it when the upstream hangs up.
      chunks.push(chunk);
      socket.pause();
      setTimeout(() => socket.resume(), 2);
    });
    socket.resume();
    await once(socket, 'end');
    const all = Buffer.concat(chunks);
    const head = all.indexOf('\r\n\r\n');
    expect(all.subarray(0, head).toString()).toMatch(/^HTTP\/1\.1 200 /);
    const received = all.length - head - 4;
    expect(received).toBe(BULK_BYTES);
    await stillServes(proxy);
  });

  it('a client that stops reading a large body: the upstream is held back, and every byte arrives once it reads', async () => {
    const proxy = await proxyWith({ plan: interceptAll });
    const tunnel = await openTunnel(proxy.port, 'api.github.test:443');
    const tls = await startTls(tunnel.socket, 'api.github.test');
    tls.pause();
    const requested = new Promise<void>((resolve) => (onLargeRequested = resolve));
    tls.write('GET /large HTTP/1.1\r\nHost: api.github.test\r\n\r\n');
    await requested;
    await large.stalled;
    // The kernel's buffers on two loopback connections take some megabytes; the proxy itself holds
    // at most MAX_BUFFERED. Without backpressure it would have read all of it.
    expect(large.written).toBeLessThan(LARGE_BYTES / 2);
    const hash = createHash('sha256');
    let head: Buffer | null = Buffer.alloc(0);
    let status = '';
    let body = 0;
    tls.on('data', (chunk: Buffer) => {
      if (head !== null) {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end === -1) return;
        status = head.subarray(0, end).toString();
        chunk = head.subarray(end + 4);
        head = null;
      }
      hash.update(chunk);
      body += chunk.length;
      if (body >= LARGE_BYTES) tls.end();
    });
    tls.resume();
    await once(tls, 'close');
    expect(status).toMatch(/^HTTP\/1\.1 200 /);
    expect(body).toBe(LARGE_BYTES);
    expect(hash.digest('hex')).toBe(largeSha256);
    await stillServes(proxy);
  });

  it('an upstream that refuses: a plain CONNECT gets a clear 502', async () => {
    const proxy = await proxyWith();
    const tunnel = await openTunnel(proxy.port, 'refused.test:443');
    expect(tunnel.status).toBe(502);
    expect(tunnel.response).toContain('proxy-status: intutic; error=connection_refused');
    expect(tunnel.response).toContain('upstream refused.test:443 failed: connect ECONNREFUSED');
    await proxy.handler.close();
    expect(proxy.events()).toEqual([
      expect.objectContaining({ type: 'egress_request', host: 'refused.test', method: 'CONNECT', outcome: 'failed', status: 502 }),
    ]);
  });

  it('an upstream that refuses inside an intercepted tunnel: a clear 502 there', async () => {
    const proxy = await proxyWith({ plan: interceptAll });
    const tunnel = await openTunnel(proxy.port, 'refused.test:443');
    const tls = await startTls(tunnel.socket, 'refused.test', proxy.handler.caCertPem);
    const res = await requestOver(tls, { host: 'refused.test' });
    expect(res.status).toBe(502);
    expect(JSON.parse(res.body.toString())).toMatchObject({ code: 'ECONNREFUSED' });
    await proxy.handler.close();
    expect(proxy.events()).toEqual([expect.objectContaining({ type: 'egress_request', outcome: 'failed', status: 502 })]);
  });

  it('an upstream whose certificate does not verify: 502 saying so, nothing forwarded', async () => {
    // No upstreamCa: the test upstream's own CA is not trusted, as a real MITM upstream would not be.
    const proxy = await startEgressProxy({ hostOverrides: overrides, plan: interceptAll });
    proxies.push(proxy);
    const tunnel = await openTunnel(proxy.port, 'api.github.test:443');
    const tls = await startTls(tunnel.socket, 'api.github.test', proxy.handler.caCertPem);
    const res = await requestOver(tls, { host: 'api.github.test' });
    expect(res.status).toBe(502);
    expect(res.headers['proxy-status']).toContain('error=tls_certificate_error');
  });

  it('an upstream hanging up mid-body: the client sees a cut response, the proxy serves on', async () => {
    const proxy = await proxyWith({ plan: interceptAll });
    const tunnel = await openTunnel(proxy.port, 'api.github.test:443');
    const tls = await startTls(tunnel.socket, 'api.github.test');
    await expect(requestOver(tls, { host: 'api.github.test', path: '/hang-up' })).rejects.toThrow(/aborted|socket hang up|ECONNRESET/);
    await stillServes(proxy);
  });

  it('a client that does not trust the per-run CA: its handshake fails, the log says why', async () => {
    const proxy = await proxyWith({ plan: interceptAll });
    const tunnel = await openTunnel(proxy.port, 'api.github.test:443');
    const tls = tlsConnect({ socket: tunnel.socket, servername: 'api.github.test' });
    const [error] = (await once(tls, 'error')) as [NodeJS.ErrnoException];
    expect(error.code).toMatch(/SELF_SIGNED|UNABLE_TO_GET_ISSUER|UNABLE_TO_VERIFY/);
    await expect.poll(() => proxy.logs.join('\n')).toContain('does it trust the per-run CA?');
    await stillServes(proxy);
  });

  it('garbage inside an intercepted tunnel is closed, not fatal', async () => {
    const proxy = await proxyWith({ plan: interceptAll });
    const tunnel = await openTunnel(proxy.port, 'api.github.test:443');
    tunnel.socket.write(Buffer.from([0x00, 0xff, 0x13, 0x37, 0x0d, 0x0a, 0x0d, 0x0a]));
    tunnel.socket.resume();
    await once(tunnel.socket, 'close');
    await stillServes(proxy);
  });

  it('plain HTTP inside an intercepted tunnel is served as HTTP, faults included', async () => {
    const proxy = await proxyWith({ plan: makePlan([{ id: 'egress.credential_401', match: { host: 'api.github.test' }, after_calls: 1 }]) });
    const first = await openTunnel(proxy.port, 'api.github.test:80');
    expect((await requestOver(first.socket, { host: 'api.github.test', path: '/x' })).body.toString()).toBe('plain /x');
    const second = await openTunnel(proxy.port, 'api.github.test:80');
    expect((await requestOver(second.socket, { host: 'api.github.test', path: '/x' })).status).toBe(401);
  });

  it('close() ends the tunnels it holds', async () => {
    const proxy = await proxyWith();
    const tunnel = await openTunnel(proxy.port, 'plain.test:443');
    expect(tunnel.status).toBe(200);
    const closed = once(tunnel.socket, 'close');
    await proxy.handler.close();
    await closed;
  });

  it('a client that disconnects right after CONNECT, before the upstream answers', async () => {
    const proxy = await proxyWith();
    const socket: Socket = connect({ host: '127.0.0.1', port: proxy.port });
    await once(socket, 'connect');
    socket.end('CONNECT plain.test:443 HTTP/1.1\r\nHost: plain.test:443\r\n\r\n');
    socket.destroy();
    await stillServes(proxy);
  });
});
