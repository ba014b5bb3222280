// The LLM relay's upstream connections, against raw TCP servers that answer exactly the bytes a
// test gives: keep-alive reuse, a kept-alive connection the upstream closed, bodies framed every
// way, and answers that are not HTTP.
import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { createCertificateAuthority } from '../src/egress/ca.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { CallCancel } from '../src/wire/cancel.ts';
import { ConnectionPool, ExchangeFailed } from '../src/wire/connection.ts';
import type { BodyPiece, Exchange } from '../src/wire/exchange.ts';

interface RawServer {
  url: URL;
  connections: number;
  requests: number;
  close(): Promise<void>;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A server that answers each request (a whole head plus Content-Length body) with `answer(n, socket)`. */
async function rawServer(answer: (request: number, socket: Socket) => void): Promise<RawServer> {
  const state = { connections: 0, requests: 0 };
  const server = createServer((socket) => {
    state.connections++;
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const end = pending.indexOf('\r\n\r\n');
        if (end === -1) return;
        const length = Number(/content-length: (\d+)/i.exec(pending.toString('latin1', 0, end))?.[1] ?? 0);
        if (pending.length < end + 4 + length) return;
        pending = pending.subarray(end + 4 + length);
        answer(++state.requests, socket);
      }
    });
    socket.on('error', () => undefined);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: new URL(`http://127.0.0.1:${port}`),
    get connections() {
      return state.connections;
    },
    get requests() {
      return state.requests;
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}

const request = { method: 'POST', path: '/v1/messages', headers: { 'content-type': 'application/json' }, body: Buffer.from('{}') };

interface Body {
  raw: Buffer;
  payload: Buffer;
  error: Error | null;
  /** With `keepViews`: the pieces as given, to be joined later. */
  views: { raw: Buffer[]; payload: Buffer[] };
}

/** Reads a body; `keepViews` keeps the pieces as given (and says so), else copies and lets them go. */
function readBody(exchange: Exchange, keepViews = false): Promise<Body> {
  return new Promise((resolve) => {
    const raw: Buffer[] = [];
    const payload: Buffer[] = [];
    const done = (error: Error | null) => resolve({ raw: Buffer.concat(raw), payload: Buffer.concat(payload), error, views: { raw, payload } });
    exchange.read({
      piece: (p: BodyPiece) => {
        raw.push(keepViews ? p.raw : Buffer.from(p.raw));
        payload.push(keepViews ? p.payload : Buffer.from(p.payload));
        return !keepViews;
      },
      end: () => done(null),
      error: (error) => done(error),
    });
  });
}

const json = (text: string) => `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${text.length}\r\n\r\n${text}`;

describe('ConnectionPool', () => {
  it('carries sequential calls to one origin on one kept-alive connection', async () => {
    const server = await rawServer((n, socket) => socket.write(json(`{"n":${n}}`)));
    const pool = new ConnectionPool({ connectMs: 1000, idleMs: 5000 });
    for (let i = 1; i <= 3; i++) {
      const exchange = await pool.exchange(server.url, request, new CallCancel());
      expect((await readBody(exchange)).payload.toString()).toBe(`{"n":${i}}`);
    }
    expect(server.connections).toBe(1);
    pool.destroy();
  });

  it('takes a fresh connection when the upstream closed the kept-alive one, without failing the call', async () => {
    // The upstream answers once per connection, then closes it on the next request without a word:
    // what a server whose keep-alive timer fired as the request went out looks like.
    const server = await rawServer((n, socket) => {
      if (n % 2 === 0) socket.destroy();
      else socket.write(json('{}'));
    });
    const pool = new ConnectionPool({ connectMs: 1000, idleMs: 5000 });
    for (let i = 0; i < 2; i++) {
      const exchange = await pool.exchange(server.url, request, new CallCancel());
      expect((await readBody(exchange)).error).toBeNull();
    }
    expect(server.connections).toBe(2);
    pool.destroy();
  });

  it('passes chunked framing on raw and decodes the payload; a body framed by close ends with the connection', async () => {
    const chunked = 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n';
    const server = await rawServer((n, socket) => (n === 1 ? socket.write(chunked) : socket.end('HTTP/1.1 200 OK\r\n\r\nuntil close')));
    const pool = new ConnectionPool({ connectMs: 1000, idleMs: 5000 });
    const first = await readBody(await pool.exchange(server.url, request, new CallCancel()));
    expect(first.payload.toString()).toBe('hello world');
    expect(first.raw.toString()).toBe('5\r\nhello\r\n6\r\n world\r\n');
    const second = await readBody(await pool.exchange(server.url, request, new CallCancel()));
    expect(second).toMatchObject({ error: null });
    expect(second.payload.toString()).toBe('until close');
    pool.destroy();
  });

  it('reuses its read memory only for pieces let go of: every body arrives intact, and pieces kept stay intact', async () => {
    // Each answer differs (the n-th has its own digits), 8 MiB in 1000-byte chunks, written in large
    // bursts so that reads fill the buffer; the head and the first bytes in one write, so that
    // they arrive in one read.
    const content = (n: number) => Buffer.from(Array.from({ length: 8 * 1024 }, (_, i) => String((i + n) % 10).repeat(1024)).join(''));
    const framed = (n: number) => {
      const parts: Buffer[] = [];
      const bytes = content(n);
      for (let at = 0; at < bytes.length; at += 1000) {
        const chunk = bytes.subarray(at, at + 1000);
        parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'));
      }
      return Buffer.concat(parts);
    };
    const server = await rawServer((n, socket) => {
      const body = Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n'), framed(n), Buffer.from('0\r\n\r\n')]);
      for (let at = 0; at < body.length; at += 300_000) socket.write(body.subarray(at, at + 300_000));
    });
    const pool = new ConnectionPool({ connectMs: 1000, idleMs: 5000 });
    const kept: Array<[number, Body]> = [];
    const modes = [false, true, true, false, true];
    for (const [i, keepViews] of modes.entries()) {
      const got = await readBody(await pool.exchange(server.url, request, new CallCancel()), keepViews);
      expect(got.error).toBeNull();
      expect(got.payload.equals(content(i + 1))).toBe(true);
      expect(got.raw.equals(framed(i + 1))).toBe(true);
      if (keepViews) kept.push([i + 1, got]);
    }
    // The pieces kept as given still hold what they held, after the connection carried more answers.
    for (const [n, got] of kept) {
      expect(Buffer.concat(got.views.payload).equals(content(n))).toBe(true);
      expect(Buffer.concat(got.views.raw).equals(framed(n))).toBe(true);
    }
    expect(server.connections).toBe(1);
    pool.destroy();
  });

  it('does not reuse a connection that sent more than its response', async () => {
    const server = await rawServer((_, socket) => socket.write(json('{}') + 'HTTP/1.1 200 OK\r\n'));
    const pool = new ConnectionPool({ connectMs: 1000, idleMs: 5000 });
    for (let i = 0; i < 2; i++) expect((await readBody(await pool.exchange(server.url, request, new CallCancel()))).error).toBeNull();
    expect(server.connections).toBe(2);
    pool.destroy();
  });

  it('reports a body cut short, and an answer that is not HTTP', async () => {
    const server = await rawServer((n, socket) => {
      if (n === 1) socket.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nonly this');
      else socket.end('SSH-2.0-OpenSSH_9.2\r\n\r\n');
    });
    const pool = new ConnectionPool({ connectMs: 1000, idleMs: 5000 });
    const cut = await readBody(await pool.exchange(server.url, request, new CallCancel()));
    expect(cut.payload.toString()).toBe('only this');
    expect(cut.error?.message).toMatch(/closed/);
    await expect(pool.exchange(server.url, request, new CallCancel())).rejects.toThrow(/not HTTP\/1.1/);
    pool.destroy();
  });

  it('gives up waiting for an answer when the client goes away, and closes that connection', async () => {
    let socket: Socket | null = null;
    const server = await rawServer((_, s) => (socket = s)); // never answers
    const pool = new ConnectionPool({ connectMs: 1000, idleMs: 5000 });
    const cancel = new CallCancel();
    const pending = pool.exchange(server.url, request, cancel);
    await new Promise((r) => setTimeout(r, 100));
    cancel.cancel();
    await expect(pending).rejects.toBeInstanceOf(ExchangeFailed);
    await new Promise((r) => setTimeout(r, 50));
    expect(socket!.destroyed || socket!.readableEnded).toBe(true);
    pool.destroy();
  });

  it('refuses a header value with a line break instead of sending it', async () => {
    const server = await rawServer((_, socket) => socket.write(json('{}')));
    const pool = new ConnectionPool({ connectMs: 1000, idleMs: 5000 });
    await expect(pool.exchange(server.url, { ...request, headers: { 'x-a': 'ok\r\nx-injected: 1' } }, new CallCancel())).rejects.toThrow(/line break/);
    expect(server.requests).toBe(0);
    pool.destroy();
  });

  it('speaks TLS to an https upstream, verifying its certificate against the system roots and any extra CA', async () => {
    const ca = createCertificateAuthority();
    const server = createTlsServer({ SNICallback: (name, cb) => cb(null, ca.contextFor(name)) }, (socket) => {
      socket.once('data', () => socket.write(json('{"tls":true}')));
      socket.on('error', () => undefined);
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const origin = new URL(`https://localhost:${(server.address() as { port: number }).port}`);
    const trusting = new ConnectionPool({ connectMs: 1000, idleMs: 5000, extraCa: [ca.caCertPem] });
    const got = await readBody(await trusting.exchange(origin, request, new CallCancel()));
    expect(got.payload.toString()).toBe('{"tls":true}');
    trusting.destroy();
    // A certificate no trusted CA signed is refused before any byte of the request goes out.
    const strict = new ConnectionPool({ connectMs: 1000, idleMs: 5000 });
    await expect(strict.exchange(origin, request, new CallCancel())).rejects.toThrow(/certificate/i);
    strict.destroy();
  });
});
