// Token usage of a model call, read from a copy of the response while the client gets the original:
// Anthropic's message_start/message_delta usage, OpenAI chat's usage chunk, the Responses API's
// response.completed, Gemini's usageMetadata (gemini-usage.ts) — or the JSON body. Compressed bodies are inflated on the copy only. When the
// provider reported no usage (an OpenAI chat stream without include_usage, a stream cut short), the
// tokens are estimated from sizes and `reported` is false, so the call is still charged.
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Transform } from 'node:stream';
import type { TokenUsage } from './pricing.ts';
import { GeminiStreamUsage, readGeminiAnswer, type GeminiReading } from './gemini-usage.ts';
import { NamedEventScanner, parseSseEvent, SseSplitter, type SseEvent } from './sse.ts';

export type ModelApi = 'anthropic-messages' | 'openai-chat' | 'openai-responses' | 'gemini-generate';

export interface CallUsage extends TokenUsage {
  /** The model the provider says served the call, when it said. */
  model: string | null;
  /** False when the provider reported no usage and the tokens were estimated. */
  reported: boolean;
}

export interface UsageCollector {
  /** Reads a piece of the body; it is only read during the call (what is kept is copied). */
  push(chunk: Buffer): void;
  finish(): Promise<CallUsage>;
}

type Json = Record<string, unknown>;
const MAX_JSON_BYTES = 32 * 1024 * 1024;
const CHARS_PER_TOKEN = 4;
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : undefined);
const obj = (v: unknown): Json => (typeof v === 'object' && v !== null ? (v as Json) : {});

class Tally {
  usage: TokenUsage = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  model: string | null = null;
  reported = false;
  outputChars = 0;

  /** Anthropic usage objects: each field present replaces the one before (message_delta is cumulative). */
  anthropic(usage: Json): void {
    for (const key of ['input_tokens', 'output_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'] as const) {
      const value = num(usage[key]);
      if (value !== undefined) this.usage[key] = value;
    }
    this.reported = true;
  }

  /** OpenAI counts cached tokens inside the input; the event keeps them apart, as Anthropic does. */
  openai(input: unknown, output: unknown, cached: unknown): void {
    const total = num(input) ?? 0;
    const cacheRead = Math.min(num(cached) ?? 0, total);
    this.usage = { input_tokens: total - cacheRead, output_tokens: num(output) ?? 0, cache_creation_input_tokens: 0, cache_read_input_tokens: cacheRead };
    this.reported = true;
  }

  /** A Gemini reading: its usage is the whole call's (cumulative); without one, its text counts toward the estimate. */
  gemini(reading: GeminiReading): void {
    this.setModel(reading.model);
    if (reading.usage) {
      this.usage = reading.usage;
      this.reported = true;
    } else {
      this.outputChars += reading.outputChars;
    }
  }

  setModel(model: unknown): void {
    if (typeof model === 'string' && model.length > 0) this.model = model;
  }
}

function readJsonBody(api: ModelApi, body: Json, tally: Tally): void {
  if (api === 'gemini-generate') return tally.gemini(readGeminiAnswer(body));
  tally.setModel(body.model);
  const usage = obj(body.usage);
  if (body.usage === undefined || body.usage === null) return;
  if (api === 'anthropic-messages') tally.anthropic(usage);
  else if (api === 'openai-chat') tally.openai(usage.prompt_tokens, usage.completion_tokens, obj(usage.prompt_tokens_details).cached_tokens);
  else tally.openai(usage.input_tokens, usage.output_tokens, obj(usage.input_tokens_details).cached_tokens);
}

function parse(data: string): Json | null {
  try {
    return obj(JSON.parse(data));
  } catch {
    return null;
  }
}

const ANTHROPIC_USAGE_EVENTS = ['message_start', 'message_delta'];
const RESPONSES_USAGE_EVENTS = ['response.created', 'response.completed', 'response.incomplete', 'response.failed'];
const USAGE_OBJECT = Buffer.from('"usage":{');

/**
 * The events of a stream that can carry usage or the model. Most of a stream is content deltas, and
 * those are never decoded: Anthropic and Responses events are picked by name; OpenAI chat chunks
 * have no names, so they are split and only those with a usage object are read (all of them when
 * the client did not ask for usage and the output must be estimated).
 */
function usageEvents(api: ModelApi, parseEveryChunk: boolean, tally: Tally): (chunk: Buffer) => Buffer[] {
  if (api !== 'openai-chat') {
    const scanner = new NamedEventScanner(api === 'anthropic-messages' ? ANTHROPIC_USAGE_EVENTS : RESPONSES_USAGE_EVENTS);
    return (chunk) => scanner.push(chunk);
  }
  const splitter = new SseSplitter();
  return (chunk) => splitter.push(chunk).filter((raw) => parseEveryChunk || tally.model === null || raw.includes(USAGE_OBJECT));
}

/** Reads one SSE event that may carry usage or the model. */
function readEvent(api: ModelApi, { event, data }: SseEvent, tally: Tally): void {
  if (api === 'anthropic-messages') {
    if (event !== 'message_start' && event !== 'message_delta') return;
    const json = parse(data);
    if (!json) return;
    if (event === 'message_start') {
      const message = obj(json.message);
      tally.setModel(message.model);
      if (message.usage) tally.anthropic(obj(message.usage));
    } else if (json.usage) {
      tally.anthropic(obj(json.usage));
    }
    return;
  }
  if (api === 'openai-chat') {
    if (data === '[DONE]') return;
    const json = parse(data);
    if (!json) return;
    tally.setModel(json.model);
    if (json.usage) readJsonBody(api, json, tally);
    for (const choice of Array.isArray(json.choices) ? json.choices : []) {
      const delta = obj(obj(choice).delta);
      if (typeof delta.content === 'string') tally.outputChars += delta.content.length;
      for (const call of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
        const args = obj(obj(call).function).arguments;
        if (typeof args === 'string') tally.outputChars += args.length;
      }
    }
    return;
  }
  const type = event ?? /^\{\s*"type"\s*:\s*"([^"]+)"/.exec(data)?.[1] ?? '';
  if (!RESPONSES_USAGE_EVENTS.includes(type)) return;
  const response = obj(parse(data)?.response);
  tally.setModel(response.model);
  if (response.usage) readJsonBody(api, response, tally);
}

export interface CollectorOptions {
  api: ModelApi;
  contentType: string | undefined;
  contentEncoding: string | undefined;
  /** Size of the request body, for the estimate when no usage is reported. */
  requestBytes: number;
  /** OpenAI chat: the client asked for the usage chunk, so the other chunks need not be read. */
  usageRequested: boolean;
}

function decompressorFor(encoding: string | undefined): Transform | null {
  const e = (encoding ?? '').trim().toLowerCase();
  if (e === 'gzip' || e === 'x-gzip') return createGunzip();
  if (e === 'deflate') return createInflate();
  if (e === 'br') return createBrotliDecompress();
  return null;
}

export function createUsageCollector(options: CollectorOptions): UsageCollector {
  const tally = new Tally();
  const sse = (options.contentType ?? '').includes('text/event-stream');
  const jsonChunks: Buffer[] = [];
  let jsonBytes = 0;
  const parseEveryChunk = options.api === 'openai-chat' && !options.usageRequested;
  const geminiStream = sse && options.api === 'gemini-generate' ? new GeminiStreamUsage() : null;
  // Only a stream is scanned for events; a JSON body is read whole at the end.
  const eventsOf = sse && !geminiStream ? usageEvents(options.api, parseEveryChunk, tally) : null;

  const consume = (chunk: Buffer): void => {
    if (geminiStream) {
      geminiStream.push(chunk);
    } else if (sse && eventsOf) {
      for (const raw of eventsOf(chunk)) readEvent(options.api, parseSseEvent(raw.toString('utf8')), tally);
    } else if (jsonBytes < MAX_JSON_BYTES) {
      jsonChunks.push(Buffer.from(chunk));
      jsonBytes += chunk.length;
    }
  };
  const result = (): CallUsage => {
    if (!sse && jsonBytes < MAX_JSON_BYTES) {
      const body = parse(Buffer.concat(jsonChunks).toString('utf8'));
      if (body) readJsonBody(options.api, body, tally);
    }
    if (geminiStream) tally.gemini(geminiStream.finish());
    if (!tally.reported) {
      tally.usage.input_tokens = Math.ceil(options.requestBytes / CHARS_PER_TOKEN);
      tally.usage.output_tokens = Math.ceil(tally.outputChars / CHARS_PER_TOKEN);
    }
    return { ...tally.usage, model: tally.model, reported: tally.reported };
  };

  const inflate = decompressorFor(options.contentEncoding);
  if (!inflate) return { push: consume, finish: () => Promise.resolve(result()) };
  inflate.on('data', consume);
  const inflated = new Promise<void>((resolve) => {
    inflate.once('end', resolve);
    inflate.once('error', () => resolve()); // a corrupt body: count what was read
  });
  return {
    // The inflater reads its input later: it gets a copy.
    push: (chunk) => void inflate.write(Buffer.from(chunk)),
    finish: async () => {
      inflate.end();
      await inflated;
      return result();
    },
  };
}
