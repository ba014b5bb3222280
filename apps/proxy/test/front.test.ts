// The proxy port's fast lane: which requests it takes (the strictest reading of a plain HTTP/1.1
// model call), and that everything else — on a new connection or mid-way through a kept-alive one —
// is served by node:http exactly as before. Driven over raw sockets, so the bytes are the test's.
import { createServer } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFront } from '../src/front.ts';
import { readRequestHead } from '../src/wire/request-head.ts';
import { anthropicRequest, startRig, type Rig } from './llm-fixtures.ts';

const head = (text: string) => readRequestHead(Buffer.from(text));
const plain = 'POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}';

describe('readRequestHead', () => {
  it('reads a plain HTTP/1.1 request: method, target, headers as node:http gives them, body size', () => {
    const got = head(plain.replace('host: x', 'Host: x\r\nX-A: 1\r\nx-a: 2'));
    expect(got).toMatchObject({ method: 'POST', target: '/v1/messages', bodyBytes: 2, close: false });
    expect(got !== 'other' && got !== 'incomplete' && got.headers).toEqual({
      host: 'x',
      'x-a': '1, 2',
      'content-type': 'application/json',
      'content-length': '2',
    });
    expect(head('POST /v1/messages HTTP/1.1\r\nhost: x\r\nconnection: Close\r\n\r\n')).toMatchObject({ bodyBytes: 0, close: true });
    expect(head('POST /v1/messages HTTP/1.1\r\ncontent-length: 2\r\n')).toBe('incomplete');
  });

  it.each([
    ['HTTP/1.0', plain.replace('HTTP/1.1', 'HTTP/1.0')],
    ['an absolute-form target', plain.replace('/v1/messages', 'http://api.anthropic.com/v1/messages')],
    ['CONNECT', 'CONNECT registry.npmjs.org:443 HTTP/1.1\r\nhost: registry.npmjs.org:443\r\n\r\n'],
    ['a chunked body', plain.replace('content-length: 2', 'transfer-encoding: chunked')],
    ['Content-Length beside Transfer-Encoding', plain.replace('content-length: 2', 'content-length: 2\r\ntransfer-encoding: chunked')],
    ['no Host', plain.replace('host: x\r\n', '')],
    ['two Hosts', plain.replace('host: x', 'host: x\r\nhost: y')],
    ['two Content-Lengths', plain.replace('content-length: 2', 'content-length: 2\r\ncontent-length: 2')],
    ['a Content-Length that is not a number', plain.replace('content-length: 2', 'content-length: +2')],
    ['Expect', plain.replace('host: x', 'host: x\r\nexpect: 100-continue')],
    ['Upgrade', plain.replace('host: x', 'host: x\r\nupgrade: websocket')],
    ['a folded header line', plain.replace('host: x', 'host: x\r\nx-a: 1\r\n 2')],
    ['a space before the colon', plain.replace('host: x', 'host : x')],
    ['a control character in a value', plain.replace('host: x', 'host: x\x01')],
    ['a bare LF in the request line', plain.replace('POST /v1/messages HTTP/1.1\r\n', 'POST /v1/messages HTTP/1.1\n')],
    ['a head longer than 64 KiB', plain.replace('host: x', `host: x\r\nx-long: ${'a'.repeat(70_000)}`)],
  ])('leaves %s to node:http', (_what, text) => {
    expect(head(text)).toBe('other');
  });

  it('gives up on a head that never ends within 64 KiB', () => {
    expect(head(`POST /v1/messages HTTP/1.1\r\nx-long: ${'a'.repeat(70_000)}`)).toBe('other');
  });
});

/** A raw connection to the proxy: write bytes, read what came back until `until` holds. */
function open(url: string): Promise<{ socket: Socket; read(until: (text: string) => boolean): Promise<string>; closed: Promise<void> }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      let received = '';
      let waiter: (() => void) | null = null;
      socket.on('data', (chunk: Buffer) => {
        received += chunk.toString('latin1');
        waiter?.();
      });
      const closed = new Promise<void>((r) => socket.once('close', () => r()));
      const read = (until: (text: string) => boolean): Promise<string> =>
        new Promise((done, fail) => {
          const timer = setTimeout(() => fail(new Error(`timed out; received so far:\n${received}`)), 5_000);
          waiter = () => {
            if (!until(received)) return;
            clearTimeout(timer);
            waiter = null;
            done(received);
          };
          waiter();
        });
      resolve({ socket, read, closed });
    });
    socket.once('error', reject);
  });
}

const responses = (text: string) => text.split(/(?=HTTP\/1\.1 \d{3} )/).filter(Boolean);
const post = (body: string, extra = '') =>
  `POST /v1/messages HTTP/1.1\r\nhost: proxy\r\ncontent-type: application/json\r\nx-api-key: test\r\n${extra}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

describe('createFront', () => {
  it('serves what it accepts itself, in order, and hands the connection to node:http at the first request it does not', async () => {
    const served: string[] = [];
    const http = createServer((req, res) => res.end(`node:http ${req.method} ${req.url}`));
    const front = createFront({
      http,
      accepts: (h) => (h.target.startsWith('/fast') ? 'fast' : null),
      serve: ({ head: h, body }, _route, reply) => {
        served.push(`${h.target} ${body.toString()}`);
        reply.writeHead(200, { 'content-length': 4 });
        reply.end('fast');
      },
    });
    await new Promise<void>((r) => front.server.listen(0, '127.0.0.1', r));
    const client = await open(`http://127.0.0.1:${(front.server.address() as AddressInfo).port}`);
    const request = (target: string, body: string) => `POST ${target} HTTP/1.1\r\nhost: x\r\ncontent-length: ${body.length}\r\n\r\n${body}`;
    // The second request's body arrives in a later write: it is waited for.
    const second = request('/fast/2', 'two');
    client.socket.write(request('/fast/1', 'one') + second.slice(0, -1));
    await client.read((t) => responses(t).length === 1);
    client.socket.write(second.slice(-1) + request('/slow', '') + request('/fast/3', 'three'));
    const text = await client.read((t) => t.includes('node:http POST /fast/3'));
    expect(responses(text).map((r) => r.split('\r\n\r\n')[1])).toEqual(['fast', 'fast', 'node:http POST /slow', 'node:http POST /fast/3']);
    expect(served).toEqual(['/fast/1 one', '/fast/2 two']);
    client.socket.destroy();
    front.closeAll();
    await new Promise((r) => front.server.close(r));
  });
  it('takes a large body in many reads whole, byte for byte', async () => {
    const bodies: Buffer[] = [];
    const front = createFront({
      http: createServer(),
      accepts: () => 'any',
      serve: ({ body }, _route, reply) => {
        bodies.push(Buffer.from(body));
        reply.writeHead(200, { 'content-length': 2 });
        reply.end('ok');
      },
    });
    await new Promise<void>((r) => front.server.listen(0, '127.0.0.1', r));
    const client = await open(`http://127.0.0.1:${(front.server.address() as AddressInfo).port}`);
    const body = Buffer.alloc(8 * 1024 * 1024, 0);
    for (let i = 0; i < body.length; i += 4) body.writeUInt32LE(i, i);
    client.socket.write(`POST /big HTTP/1.1\r\nhost: x\r\ncontent-length: ${body.length}\r\n\r\n`);
    for (let at = 0; at < body.length; at += 16 * 1024) client.socket.write(body.subarray(at, at + 16 * 1024));
    await client.read((t) => t.endsWith('ok'));
    expect(bodies).toHaveLength(1);
    expect(bodies[0]!.equals(body)).toBe(true);
    client.socket.destroy();
    front.closeAll();
    await new Promise((r) => front.server.close(r));
  });
});

describe('the fast lane on the proxy port', () => {
  let rig: Rig;
  beforeAll(async () => {
    rig = await startRig({ side_requests: 'never', after_last: 'repeat_last', turns: [{ text: 'hello' }] }, { maxBodyBytes: 4096 });
  });
  afterAll(() => rig.close());

  it('answers requests sent back to back in one write, in order, then hands the connection to node:http at /health', async () => {
    const client = await open(rig.proxy.url);
    client.socket.write(post(anthropicRequest()) + post(anthropicRequest()) + 'GET /health HTTP/1.1\r\nhost: proxy\r\n\r\n');
    const text = await client.read((t) => responses(t).length === 3 && t.endsWith('"status":"ok"}'));
    const [first, second, health] = responses(text);
    for (const answer of [first!, second!]) {
      expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(answer).toContain('"text":"hello"');
    }
    expect(health).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    client.socket.destroy();
    expect(await rig.calls()).toHaveLength(2);
  });

  it('serves a chunked request body and an Expect: 100-continue through node:http, as before', async () => {
    const body = anthropicRequest();
    const client = await open(rig.proxy.url);
    client.socket.write(
      `POST /v1/messages HTTP/1.1\r\nhost: proxy\r\ncontent-type: application/json\r\nx-api-key: test\r\ntransfer-encoding: chunked\r\n\r\n${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`,
    );
    expect(await client.read((t) => t.includes('"text":"hello"'))).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    client.socket.destroy();
    const waiting = await open(rig.proxy.url);
    waiting.socket.write(post('', 'expect: 100-continue\r\n').replace('content-length: 0', `content-length: ${Buffer.byteLength(body)}`));
    expect(await waiting.read((t) => t.includes('100 Continue'))).toMatch(/^HTTP\/1\.1 100 Continue/);
    waiting.socket.write(body);
    expect(await waiting.read((t) => t.includes('"text":"hello"'))).toContain('HTTP/1.1 200 OK');
    waiting.socket.destroy();
  });

  it('refuses what node:http refuses: a folded header or no Host gets its 400, a body over the limit the provider-format 413', async () => {
    const hostless = await open(rig.proxy.url);
    hostless.socket.write(post(anthropicRequest()).replace('host: proxy\r\n', ''));
    expect(await hostless.read((t) => t.includes('\r\n\r\n'))).toMatch(/^HTTP\/1\.1 400 Bad Request/);
    await hostless.closed;
    const folded = await open(rig.proxy.url);
    folded.socket.write(post(anthropicRequest(), 'x-a: 1\r\n 2\r\n'));
    expect(await folded.read((t) => t.includes('\r\n\r\n'))).toMatch(/^HTTP\/1\.1 400 Bad Request/);
    await folded.closed;
    const large = await open(rig.proxy.url);
    large.socket.write(post(anthropicRequest({ padding: 'x'.repeat(5000) })));
    const answer = await large.read((t) => t.includes('request body larger than 4096 bytes'));
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    large.socket.destroy();
  });

  it('closes the connection after answering a request that asks it to', async () => {
    const client = await open(rig.proxy.url);
    client.socket.write(post(anthropicRequest(), 'connection: close\r\n'));
    const text = await client.read((t) => t.includes('"text":"hello"'));
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text.toLowerCase()).toContain('connection: close\r\n');
    await client.closed;
  });

  it('a client that hangs up mid-request leaves the proxy serving others', async () => {
    const gone = await open(rig.proxy.url);
    gone.socket.write(post(anthropicRequest()).slice(0, 60));
    gone.socket.destroy();
    const client = await open(rig.proxy.url);
    client.socket.write(post(anthropicRequest()));
    expect(await client.read((t) => t.includes('"text":"hello"'))).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    client.socket.destroy();
  });
});
