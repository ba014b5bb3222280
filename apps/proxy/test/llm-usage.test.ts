// Usage read from a copy of the response: the same totals whatever the chunking, from each
// provider's stream and JSON shapes (Anthropic, OpenAI chat and Responses, Gemini), through
// compression, and an estimate when none is reported.
import { gzipSync, brotliCompressSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { NamedEventScanner, SseSplitter } from '../src/llm/sse.ts';
import { createUsageCollector, type ModelApi } from '../src/llm/usage.ts';

const anthropicStream = [
  'event: message_start\ndata: {"type":"message_start","message":{"model":"claude-sonnet-4-5","usage":{"input_tokens":120,"cache_creation_input_tokens":30,"cache_read_input_tokens":400,"output_tokens":1}}}\n\n',
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"héllo ✓"}}\n\n',
  'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":77}}\n\n',
  'event: message_stop\ndata: {"type":"message_stop"}\n\n',
].join('');

const chatStream = [
  'data: {"id":"c","model":"gpt-5","choices":[{"index":0,"delta":{"role":"assistant","content":""}}],"usage":null}\n\n',
  'data: {"id":"c","model":"gpt-5","choices":[{"index":0,"delta":{"content":"abcd"}}],"usage":null}\n\n',
  'data: {"id":"c","model":"gpt-5","choices":[],"usage":{"prompt_tokens":500,"completion_tokens":9,"prompt_tokens_details":{"cached_tokens":200}}}\n\n',
  'data: [DONE]\n\n',
].join('');

const responsesStream = [
  'event: response.created\ndata: {"type":"response.created","response":{"id":"r","model":"gpt-5-codex","usage":null}}\n\n',
  'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"hi"}\n\n',
  'event: response.completed\ndata: {"type":"response.completed","response":{"id":"r","model":"gpt-5-codex","usage":{"input_tokens":300,"input_tokens_details":{"cached_tokens":100},"output_tokens":40}}}\n\n',
].join('');

// Gemini: data-only chunks, CRLF-separated, usageMetadata cumulative; cached tokens inside promptTokenCount.
const geminiChunk = (text: string, usage: Record<string, number> | null, extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0 }], ...(usage ? { usageMetadata: usage } : {}), modelVersion: 'gemini-2.5-flash-001', ...extra })}\r\n\r\n`;
const geminiStream = [
  geminiChunk('héllo ✓ "usageMetadata": ', { promptTokenCount: 900, totalTokenCount: 900 }),
  geminiChunk('more', { promptTokenCount: 900, candidatesTokenCount: 7, totalTokenCount: 907 }),
  geminiChunk('done', { promptTokenCount: 900, candidatesTokenCount: 12, cachedContentTokenCount: 600, thoughtsTokenCount: 40, totalTokenCount: 952 }),
].join('');

async function collect(api: ModelApi, body: Buffer, chunks: number[], options: { type?: string; encoding?: string; usageRequested?: boolean } = {}) {
  const collector = createUsageCollector({
    api,
    contentType: options.type ?? 'text/event-stream',
    contentEncoding: options.encoding,
    requestBytes: 4000,
    usageRequested: options.usageRequested ?? true,
  });
  // The relay reuses a piece's memory once push returns: each piece is overwritten right after.
  const push = (bytes: Buffer): void => {
    const piece = Buffer.from(bytes);
    collector.push(piece);
    piece.fill(0x7e);
  };
  let at = 0;
  for (const size of chunks) {
    push(body.subarray(at, at + size));
    at += size;
  }
  push(body.subarray(at));
  return collector.finish();
}

const sizes = fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 60 });

describe('usage from streams', () => {
  it('reads Anthropic message_start and message_delta, whatever the chunking', async () => {
    await fc.assert(
      fc.asyncProperty(sizes, async (chunks) => {
        const usage = await collect('anthropic-messages', Buffer.from(anthropicStream), chunks);
        expect(usage).toEqual({
          model: 'claude-sonnet-4-5',
          reported: true,
          input_tokens: 120,
          output_tokens: 77,
          cache_creation_input_tokens: 30,
          cache_read_input_tokens: 400,
        });
      }),
    );
  });

  it("reads OpenAI chat's usage chunk, keeping cached tokens apart from input", async () => {
    await fc.assert(
      fc.asyncProperty(sizes, async (chunks) => {
        const usage = await collect('openai-chat', Buffer.from(chatStream), chunks);
        expect(usage).toEqual({
          model: 'gpt-5',
          reported: true,
          input_tokens: 300,
          output_tokens: 9,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 200,
        });
      }),
    );
  });

  it("reads the Responses API's response.completed", async () => {
    await fc.assert(
      fc.asyncProperty(sizes, async (chunks) => {
        const usage = await collect('openai-responses', Buffer.from(responsesStream), chunks);
        expect(usage).toMatchObject({ model: 'gpt-5-codex', reported: true, input_tokens: 200, output_tokens: 40, cache_read_input_tokens: 100 });
      }),
    );
  });

  it("reads Gemini's last usageMetadata: cached tokens apart from input, thinking tokens as output", async () => {
    await fc.assert(
      fc.asyncProperty(sizes, async (chunks) => {
        const usage = await collect('gemini-generate', Buffer.from(geminiStream), chunks);
        expect(usage).toEqual({
          model: 'gemini-2.5-flash-001',
          reported: true,
          input_tokens: 300,
          output_tokens: 52,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 600,
        });
      }),
    );
  });

  it('estimates a Gemini stream that carries no usageMetadata from its text', async () => {
    const bare = [
      geminiChunk('abcd', null),
      geminiChunk('efgh', null, { candidates: [{ content: { parts: [{ functionCall: { name: 'f', args: {} } }] } }] }),
    ].join('');
    expect(await collect('gemini-generate', Buffer.from(bare), [5, 50])).toMatchObject({
      reported: false,
      model: 'gemini-2.5-flash-001',
      input_tokens: 1000,
      output_tokens: 2,
    });
  });

  it('finds usage events among long content deltas, with chunks of any size', async () => {
    const delta = (i: number) =>
      `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${'event: message_delta '.repeat(i % 7)}${'y'.repeat(200)}"}}\n\n`;
    const [start, , end, stop] = anthropicStream.split(/(?<=\n\n)/);
    const long = Buffer.from([start, ...Array.from({ length: 60 }, (_, i) => delta(i)), end, stop].join(''));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 700 }), { maxLength: 80 }), async (chunks) => {
        const usage = await collect('anthropic-messages', long, chunks);
        expect(usage).toMatchObject({ input_tokens: 120, output_tokens: 77, cache_read_input_tokens: 400 });
      }),
    );
  });

  it('handles CRLF event separators', async () => {
    const crlf = anthropicStream.replace(/\n/g, '\r\n');
    expect((await collect('anthropic-messages', Buffer.from(crlf), [7, 13, 5])).output_tokens).toBe(77);
  });

  it('estimates from sizes when a chat stream carries no usage chunk', async () => {
    const withoutUsage = chatStream
      .split('\n\n')
      .filter((e) => !e.includes('"usage":{'))
      .join('\n\n');
    const usage = await collect('openai-chat', Buffer.from(withoutUsage), [], { usageRequested: false });
    expect(usage).toMatchObject({ reported: false, input_tokens: 1000, output_tokens: 1 }); // 4000 request bytes; "abcd"
  });
});

describe('usage from JSON bodies', () => {
  it('reads each provider body, also gzip and brotli compressed', async () => {
    const anthropic = Buffer.from(JSON.stringify({ model: 'claude-haiku-4-5', usage: { input_tokens: 5, output_tokens: 6, cache_read_input_tokens: 7 } }));
    expect(await collect('anthropic-messages', anthropic, [3], { type: 'application/json' })).toMatchObject({
      model: 'claude-haiku-4-5',
      input_tokens: 5,
      output_tokens: 6,
      cache_read_input_tokens: 7,
    });
    expect(await collect('anthropic-messages', gzipSync(anthropic), [10], { type: 'application/json', encoding: 'gzip' })).toMatchObject({
      input_tokens: 5,
      output_tokens: 6,
    });
    const chat = Buffer.from(
      JSON.stringify({ model: 'gpt-4o', usage: { prompt_tokens: 50, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 20 } } }),
    );
    expect(await collect('openai-chat', brotliCompressSync(chat), [], { type: 'application/json', encoding: 'br' })).toMatchObject({
      input_tokens: 30,
      cache_read_input_tokens: 20,
      output_tokens: 5,
    });
    const gemini = Buffer.from(
      JSON.stringify({
        candidates: [],
        usageMetadata: { promptTokenCount: 80, candidatesTokenCount: 9, thoughtsTokenCount: 1 },
        modelVersion: 'gemini-2.5-pro',
      }),
    );
    expect(await collect('gemini-generate', gzipSync(gemini), [4], { type: 'application/json; charset=UTF-8', encoding: 'gzip' })).toMatchObject({
      model: 'gemini-2.5-pro',
      input_tokens: 80,
      output_tokens: 10,
      cache_read_input_tokens: 0,
    });
    // streamGenerateContent without ?alt=sse answers a JSON array of chunks: the last usage counts.
    const array = Buffer.from(JSON.stringify([{ modelVersion: 'gemini-2.5-pro', usageMetadata: { promptTokenCount: 80 } }, JSON.parse(gemini.toString())]));
    expect(await collect('gemini-generate', array, [7], { type: 'application/json' })).toMatchObject({ reported: true, input_tokens: 80, output_tokens: 10 });
    const gzStream = gzipSync(Buffer.from(anthropicStream));
    expect((await collect('anthropic-messages', gzStream, [9, 9, 9], { encoding: 'gzip' })).output_tokens).toBe(77);
  });
});

describe('SseSplitter', () => {
  it('returns whole events byte for byte, whatever the chunking', () => {
    fc.assert(
      fc.property(sizes, (chunks) => {
        const body = Buffer.from(anthropicStream);
        const splitter = new SseSplitter();
        const events: Buffer[] = [];
        let at = 0;
        for (const size of [...chunks, body.length]) {
          events.push(...splitter.push(body.subarray(at, at + size)));
          at += size;
        }
        expect(Buffer.concat(events).equals(body)).toBe(true);
        expect(events).toHaveLength(4);
      }),
    );
  });
});

describe('NamedEventScanner', () => {
  it('finds exactly the named events at line starts, whatever the chunking, and keeps nothing of a chunk it was given', () => {
    // Marker text inside data lines and at a stream's very start; a CRLF event among LF ones.
    const events = [
      'event: message_start\ndata: {"a":1}\n\n',
      'event: content_block_delta\ndata: {"text":"event: message_delta event: message_start"}\n\n',
      'event: ping\ndata: {}\n\n',
      'event: message_delta\r\ndata: {"usage":{"output_tokens":3}}\r\n\r\n',
      'event: message_deltas\ndata: {}\n\n',
      'event: message_stop\ndata: {}\n\n',
    ];
    // Runs of short events among them, so that both ways of scanning (line feeds sparse, dense) run.
    const pings = (n: number) => Array.from({ length: n }, (_, i) => `event: ping\ndata: {"n":${i}}\n\n`);
    const all = [...pings(50), events[0], ...pings(80), events[1], events[2], events[3], ...pings(120), events[4], events[5]];
    const body = Buffer.from(all.join(''));
    const wanted = [events[0], events[3]];
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 3000 }), { maxLength: 30 }), (chunks) => {
        const scanner = new NamedEventScanner(['message_start', 'message_delta']);
        const found: string[] = [];
        let at = 0;
        for (const size of [...chunks, body.length]) {
          const piece = Buffer.from(body.subarray(at, at + size));
          found.push(...scanner.push(piece).map((e) => e.toString()));
          piece.fill(0x0a); // reused memory: line feeds everywhere would invent markers if any view were kept
          at += size;
        }
        expect(found).toEqual(wanted);
      }),
    );
  });
});
