// The relay's pass-through under backpressure. The upstream's pieces come from one buffer that is
// overwritten for the next piece as soon as the relay says it let go of it — as the connection's
// read buffer is. A client that stops reading fills the socket's buffers until writes queue; the
// relay must then say it still holds the queued bytes, or the client gets later bytes in their place.
import { createServer, request, type Server } from 'node:http';
import { afterEach, expect, it } from 'vitest';
import { relay, type UpstreamBody } from '../src/llm/relay.ts';
import { createUsageCollector } from '../src/llm/usage.ts';
import type { BodyHandlers } from '../src/wire/exchange.ts';

const PIECES = 6000;
const piece = (i: number): Buffer => {
  const data = `data: ${String(i).padStart(6, '0')} ${String.fromCharCode(97 + (i % 26)).repeat(4000)}\n\n`;
  return Buffer.from(`${data.length.toString(16)}\r\n${data}\r\n`);
};

/** An upstream stream of PIECES chunks, each written into the same memory unless it is held. */
function scriptedUpstream(): UpstreamBody {
  let paused = false;
  let next = 0;
  let memory = Buffer.alloc(8192);
  let handlers: BodyHandlers | null = null;
  const pump = (): void => {
    while (!paused && next < PIECES && handlers) {
      const bytes = piece(next++);
      bytes.copy(memory);
      const view = memory.subarray(0, bytes.length);
      if (!handlers.piece({ raw: view, payload: view })) memory = Buffer.alloc(8192);
    }
    if (next === PIECES && handlers) {
      const done = handlers;
      handlers = null;
      done.end();
    }
  };
  return {
    head: { status: 200, headers: { 'content-type': 'text/event-stream' }, framing: { kind: 'chunked' }, keepAlive: true },
    read(h) {
      handlers = h;
      setImmediate(pump);
    },
    pause: () => void (paused = true),
    resume: () => {
      paused = false;
      setImmediate(pump);
    },
    destroy: () => void (handlers = null),
  };
}

let server: Server | null = null;
afterEach(() => new Promise<void>((r) => (server ? server.close(() => r()) : r())));

it('passes every piece through intact to a client that stops reading for a while', async () => {
  server = createServer((req, res) => {
    const collector = createUsageCollector({
      api: 'anthropic-messages',
      contentType: 'text/event-stream',
      contentEncoding: undefined,
      requestBytes: 0,
      usageRequested: true,
    });
    void relay(req.httpVersion, scriptedUpstream(), res, collector, null);
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  const body = await new Promise<Buffer>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/' }, (res) => {
      const chunks: Buffer[] = [];
      // Not a byte read for a while: the relay's writes queue behind full socket buffers.
      res.pause();
      setTimeout(() => res.resume(), 1500);
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks)));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
  const expected = Array.from({ length: PIECES }, (_, i) =>
    piece(i)
      .toString('latin1')
      .replace(/^[0-9a-f]+\r\n/, '')
      .replace(/\r\n$/, ''),
  ).join('');
  expect(body.length).toBe(expected.length);
  expect(body.toString('latin1') === expected).toBe(true);
});
