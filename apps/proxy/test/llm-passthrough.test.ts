// The LLM side with no fault: responses reach the client byte for byte as the upstream sent them,
// streams are not buffered, the client's headers and keys pass, and each model call is recorded
// with its tokens and the price table's cost. Keys never reach the log or the events.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicRequest, chatRequest, rawPost, responsesRequest, startRig, type Rig } from './llm-fixtures.ts';
import { scratchDir } from '@intutic/testkit';

const FIXED_USAGE = { input_tokens: 1000, output_tokens: 500, cache_creation_input_tokens: 2000, cache_read_input_tokens: 3000 };
const longText = 'The quick brown fox jumps over the lazy dog. '.repeat(40);
const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

let rig: Rig;
beforeAll(async () => {
  rig = await startRig({
    side_requests: 'never',
    turns: [{ text: longText, tool_calls: [{ name: 'Bash', input: { command: 'npm install lodash', description: 'install ünïcödé ✓' } }], usage: FIXED_USAGE }],
  });
});
afterAll(async () => rig.close());

describe('byte-identical pass-through', () => {
  const cases = [
    ['Anthropic SSE', '/v1/messages?beta=true', anthropicRequest({ stream: true })],
    ['Anthropic JSON', '/v1/messages', anthropicRequest()],
    ['OpenAI chat stream with usage', '/v1/chat/completions', chatRequest({ stream: true, stream_options: { include_usage: true } })],
    ['OpenAI chat JSON', '/v1/chat/completions', chatRequest()],
    ['OpenAI Responses SSE', '/v1/responses', responsesRequest({ stream: true })],
    ['OpenAI Responses JSON', '/v1/responses', responsesRequest()],
  ] as const;

  for (const [name, path, body] of cases) {
    it(`${name}: the proxied response equals the direct one`, async () => {
      const direct = await rawPost(rig.model.url, path, body, { 'x-api-key': 'k' });
      const proxied = await rawPost(rig.proxy.url, path, body, { 'x-api-key': 'k' });
      expect(direct.status).toBe(200);
      expect(proxied.status).toBe(direct.status);
      expect(proxied.headers['content-type']).toBe(direct.headers['content-type']);
      expect(proxied.body.length).toBeGreaterThan(1000);
      expect(proxied.body.equals(direct.body)).toBe(true);
    });
  }
});

/** A chunked response to one request on a fresh connection, as bytes on the wire: head and body apart. */
async function onTheWire(base: string, path: string, body: string): Promise<{ head: string; body: Buffer }> {
  const { connect } = await import('node:net');
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      const all = Buffer.concat(chunks);
      // A chunked body is whole at its last chunk.
      if (!all.subarray(-7).equals(Buffer.from('\r\n0\r\n\r\n'))) return;
      socket.destroy();
      const end = all.indexOf('\r\n\r\n');
      resolve({ head: all.toString('latin1', 0, end), body: all.subarray(end + 4) });
    });
    socket.on('error', reject);
    socket.write(`POST ${path} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  });
}

describe('on the wire', () => {
  it("passes a stream's chunk framing through as the upstream framed it", async () => {
    const path = '/v1/messages';
    const body = anthropicRequest({ stream: true });
    const direct = await onTheWire(rig.model.url, path, body);
    const proxied = await onTheWire(rig.proxy.url, path, body);
    expect(direct.head).toMatch(/transfer-encoding: chunked/i);
    expect(proxied.head).toMatch(/transfer-encoding: chunked/i);
    // One chunk per SSE event, as the scripted model writes them; the proxy re-frames nothing.
    expect(direct.body.toString('latin1').match(/\r\n[0-9a-f]+\r\n/g)!.length).toBeGreaterThan(5);
    expect(proxied.body.equals(direct.body)).toBe(true);
  });
});

describe('streaming', () => {
  it('relays a long stream intact to a client that reads slowly (the upstream is paused until the client drains)', async () => {
    // Varied text, so that a byte from the wrong read would show; ~6 MB, more than socket buffers hold.
    const text = Array.from({ length: 60_000 }, (_, i) => `${i.toString(36)} `.padEnd(100, String.fromCharCode(97 + (i % 26)))).join('');
    rig.model.setScript({ side_requests: 'never', chunk_chars: 4096, turns: [{ text }] });
    try {
      const { request } = await import('node:http');
      const read = (base: string, slow: boolean) =>
        new Promise<Buffer>((resolve, reject) => {
          const req = request(new URL('/v1/messages', base), { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => {
              chunks.push(c);
              if (slow && chunks.length % 8 === 0) {
                res.pause();
                setTimeout(() => res.resume(), 20);
              }
            });
            res.on('end', () => resolve(Buffer.concat(chunks)));
            res.on('error', reject);
          });
          req.on('error', reject);
          req.end(anthropicRequest({ stream: true }));
        });
      const direct = await read(rig.model.url, false);
      const proxied = await read(rig.proxy.url, true);
      expect(direct.length).toBeGreaterThan(6_000_000);
      expect(proxied.equals(direct)).toBe(true);
    } finally {
      rig.model.setScript({ side_requests: 'never', turns: [{ text: longText, usage: FIXED_USAGE }] });
    }
  });

  it('delivers each event when the upstream sends it, not at the end', async () => {
    // The upstream sends its first event and holds the rest until the client has read that one (or
    // 10 s pass, so a broken proxy fails rather than hangs): a proxy that buffered the stream would
    // hand the client nothing before the upstream had sent everything.
    let clientHasFirst!: () => void;
    const firstReceived = new Promise<void>((resolve) => (clientHasFirst = resolve));
    let restSent = false;
    const upstream = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(sse('message_start', { type: 'message_start', message: { model: 'claude-sonnet-4-5', usage: { input_tokens: 7, output_tokens: 1 } } }));
      void Promise.race([firstReceived, new Promise((r) => setTimeout(r, 10_000).unref())]).then(() => {
        restSent = true;
        res.end(
          sse('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 3 } }) +
            sse('message_stop', { type: 'message_stop' }),
        );
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const held = await startRig({ turns: [] }, { upstreamAnthropic: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` });
    try {
      const { request } = await import('node:http');
      const { firstBeforeRest, body } = await new Promise<{ firstBeforeRest: boolean; body: string }>((resolve, reject) => {
        const req = request(new URL('/v1/messages', held.proxy.url), { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
          let body = '';
          let firstBeforeRest: boolean | null = null;
          res.on('data', (chunk: Buffer) => {
            body += chunk.toString();
            firstBeforeRest ??= !restSent;
            clientHasFirst();
          });
          res.on('end', () => resolve({ firstBeforeRest: firstBeforeRest === true, body }));
        });
        req.on('error', reject);
        req.end(anthropicRequest({ stream: true }));
      });
      expect(firstBeforeRest, 'the first event reached the client while the upstream still held the rest').toBe(true);
      expect(body).toContain('event: message_stop');
    } finally {
      await held.close();
      upstream.closeAllConnections();
      await new Promise((r) => upstream.close(r));
    }
  });
});

describe('headers and keys', () => {
  it("passes the client's headers, keys and query to the upstream and rewrites only Host", async () => {
    await rawPost(rig.proxy.url, '/v1/messages?beta=true', anthropicRequest(), {
      'x-api-key': 'sk-ant-secret-111',
      authorization: 'Bearer sk-secret-222',
      'anthropic-version': '2023-06-01',
      'anthropic-beta': 'tools-2024',
    });
    const seen = rig.model.requests.at(-1)!;
    expect(seen.url).toBe('/v1/messages?beta=true');
    expect(seen.headers['x-api-key']).toBe('sk-ant-secret-111');
    expect(seen.headers.authorization).toBe('Bearer sk-secret-222');
    expect(seen.headers['anthropic-beta']).toBe('tools-2024');
    expect(seen.headers.host).toBe(new URL(rig.model.url).host);
  });

  it('never writes a key to the log or the events file', async () => {
    await rig.events();
    const everything = rig.log.lines.join('') + readFileSync(rig.eventsPath, 'utf8');
    expect(everything).not.toContain('sk-ant-secret-111');
    expect(everything).not.toContain('sk-secret-222');
    expect(rig.log.lines.length).toBeGreaterThan(0);
  });
});

describe('cost accounting', () => {
  it('records every model call with tokens (incl. cache) and the price-table cost', async () => {
    rig.model.setScript({ side_requests: 'never', turns: [{ text: 'hi', usage: FIXED_USAGE }] });
    const before = (await rig.calls()).length;
    await rawPost(rig.proxy.url, '/v1/messages?beta=true', anthropicRequest({ stream: true }));
    await rawPost(rig.proxy.url, '/v1/chat/completions', chatRequest({ stream: true, stream_options: { include_usage: true } }));
    await rawPost(rig.proxy.url, '/v1/responses', responsesRequest());
    const calls = (await rig.calls()).slice(before);
    expect(calls).toHaveLength(3);
    const [anthropic, chat, responses] = calls;
    expect(anthropic).toMatchObject({
      source: 'proxy',
      provider: 'anthropic',
      endpoint: '/v1/messages',
      model: 'claude-sonnet-4-5',
      status: 200,
      stream: true,
      ...FIXED_USAGE,
      priced_as_unknown: false,
    });
    // sonnet 4.5: $3 in, $15 out, $3.75 cache write, $0.30 cache read per million.
    expect(anthropic!.cost_usd).toBeCloseTo((1000 * 3 + 500 * 15 + 2000 * 3.75 + 3000 * 0.3) / 1e6, 9);
    // OpenAI reports cached tokens inside the prompt; no cache writes.
    expect(chat).toMatchObject({
      provider: 'openai',
      endpoint: '/v1/chat/completions',
      model: 'gpt-5',
      stream: true,
      input_tokens: 1000,
      output_tokens: 500,
      cache_read_input_tokens: 3000,
      cache_creation_input_tokens: 0,
    });
    expect(chat!.cost_usd).toBeCloseTo((1000 * 1.25 + 500 * 10 + 3000 * 0.125) / 1e6, 9);
    expect(responses).toMatchObject({
      provider: 'openai',
      endpoint: '/v1/responses',
      model: 'gpt-5-codex',
      stream: false,
      input_tokens: 1000,
      cache_read_input_tokens: 3000,
    });
    expect(responses!.cost_usd).toBeCloseTo((1000 * 1.25 + 500 * 10 + 3000 * 0.125) / 1e6, 9);
    for (const call of calls) expect(call.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('charges an unknown model at the highest known price of each kind and warns once', async () => {
    const before = (await rig.calls()).length;
    await rawPost(rig.proxy.url, '/v1/messages', anthropicRequest({ model: 'claude-mystery-9' }));
    await rawPost(rig.proxy.url, '/v1/messages', anthropicRequest({ model: 'claude-mystery-9' }));
    const [call] = (await rig.calls()).slice(before);
    // Highest in the shipped table: input 15 and output 75 (opus 4), cache write 18.75, cache read 7.5 (o1).
    expect(call).toMatchObject({ model: 'claude-mystery-9', priced_as_unknown: true });
    expect(call!.cost_usd).toBeCloseTo((1000 * 15 + 500 * 75 + 2000 * 18.75 + 3000 * 7.5) / 1e6, 9);
    expect(rig.log.lines.filter((l) => l.includes('not in the price table') && l.includes('claude-mystery-9'))).toHaveLength(1);
  });

  it('prices dated model versions by their family', async () => {
    const before = (await rig.calls()).length;
    await rawPost(rig.proxy.url, '/v1/messages', anthropicRequest({ model: 'claude-haiku-4-5-20251001' }));
    const [call] = (await rig.calls()).slice(before);
    expect(call).toMatchObject({ priced_as_unknown: false });
    expect(call!.cost_usd).toBeCloseTo((1000 * 1 + 500 * 5 + 2000 * 1.25 + 3000 * 0.1) / 1e6, 9);
  });

  it('estimates an OpenAI chat stream that carried no usage chunk, so it is still charged', async () => {
    rig.model.setScript({ side_requests: 'never', turns: [{ text: 'y'.repeat(400) }] });
    const before = (await rig.calls()).length;
    await rawPost(rig.proxy.url, '/v1/chat/completions', chatRequest({ stream: true }));
    const [call] = (await rig.calls()).slice(before);
    expect(call!.output_tokens).toBe(100); // 400 characters of content
    expect(call!.input_tokens).toBeGreaterThan(0);
    expect(call!.cost_usd).toBeGreaterThan(0);
    expect(rig.log.lines.some((l) => l.includes('reported no usage'))).toBe(true);
  });

  it('forwards count_tokens without recording it as a model call', async () => {
    const before = (await rig.calls()).length;
    const res = await rawPost(rig.proxy.url, '/v1/messages/count_tokens?beta=true', anthropicRequest());
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.toString()).input_tokens).toBeGreaterThan(0);
    expect(rig.model.requests.at(-1)!.url).toBe('/v1/messages/count_tokens?beta=true');
    expect((await rig.calls()).length).toBe(before);
  });
});

describe('price table override', () => {
  it('uses the --prices file instead of the shipped table', async () => {
    const { join } = await import('node:path');
    const file = join(scratchDir('intutic-prices-'), 'prices.json');
    writeFileSync(file, JSON.stringify({ schema_version: 1, models: { 'claude-sonnet-4-5': { input: 100, output: 0, cache_write: 0, cache_read: 0 } } }));
    const other = await startRig({ side_requests: 'never', turns: [{ text: 'hi', usage: FIXED_USAGE }] }, { pricesPath: file });
    try {
      await rawPost(other.proxy.url, '/v1/messages', anthropicRequest());
      const [call] = await other.calls();
      expect(call!.cost_usd).toBeCloseTo((1000 * 100) / 1e6, 9);
    } finally {
      await other.close();
    }
  });
});
