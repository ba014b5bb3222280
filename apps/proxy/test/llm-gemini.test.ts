// Gemini through the real proxy, against a local upstream that answers in Gemini's own format
// (generateContent JSON, streamGenerateContent SSE chunks with cumulative usageMetadata, google.rpc
// errors): pass-through byte for byte with usage and cost, the key swapped in x-goog-api-key and in
// ?key= and any other refused as Google would, the llm.* faults in Gemini's format (RetryInfo, a
// stream ending with an error chunk), the model named in the path, and countTokens not a model call.
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventOf } from '@intutic/events';
import type { PlanFault } from '@intutic/faults';
import { EMPTY_POLICY } from '@intutic/governance';
import { scratchDir } from '@intutic/testkit';
import { SseSplitter } from '../src/llm/sse.ts';
import { keySwapsFromEnv, memoryLogger, policyFrom, startProxy, type ProxyOptions, type RunningProxy } from '../src/index.ts';
import { CANARY, eventsOf, planWith, rawPost } from './llm-fixtures.ts';

interface Seen {
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const PROMPT = 1200;
const CACHED = 200;
const THOUGHTS = 30;
const usage = (candidates: number) => ({
  promptTokenCount: PROMPT,
  candidatesTokenCount: candidates,
  totalTokenCount: PROMPT + candidates + THOUGHTS,
  cachedContentTokenCount: CACHED,
  promptTokensDetails: [{ modality: 'TEXT', tokenCount: PROMPT }],
  thoughtsTokenCount: THOUGHTS,
});
const answer = (model: string, text: string, candidates: number) => ({
  candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
  usageMetadata: usage(candidates),
  modelVersion: model,
  responseId: 'resp-gemini-1',
});

/** What the API says of a history it rejects: it starts with the model, or a function response follows no call. */
function historyProblem(contents: unknown): string | null {
  if (!Array.isArray(contents) || contents.length === 0) return 'contents is not specified';
  const turns = contents as Array<{ role?: string; parts?: Array<Record<string, unknown>> }>;
  if (turns[0]!.role === 'model') return 'Please ensure that the conversation starts with a user turn.';
  for (const [i, turn] of turns.entries()) {
    if (!turn.parts?.some((p) => p.functionResponse)) continue;
    if (!turns[i - 1]?.parts?.some((p) => p.functionCall)) return 'Please ensure that function response turn comes immediately after a function call turn.';
  }
  return null;
}

/** A local Gemini API: the served model is the one in the path; a stream is four CRLF-separated chunks. */
async function startGeminiUpstream(): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ url: req.url ?? '', headers: req.headers, body });
      const match = /^\/v\w+\/models\/([^/:]+):(\w+)/.exec(req.url ?? '');
      const json = (status: number, value: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
        res.end(JSON.stringify(value));
      };
      if (!match) return json(404, { error: { code: 404, message: 'not found', status: 'NOT_FOUND' } });
      const [, model = '', method = ''] = match;
      if (method === 'countTokens') return json(200, { totalTokens: 42 });
      const problem = historyProblem((JSON.parse(body.toString()) as { contents?: unknown }).contents);
      if (problem) return json(400, { error: { code: 400, message: problem, status: 'INVALID_ARGUMENT' } });
      if (method === 'generateContent') return json(200, answer(model, 'Installing lodash now.', 50));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const words = ['Installing ', 'lodash ', 'now, ', 'one moment.'];
      for (const [i, word] of words.entries()) {
        const chunk = answer(model, word, 5 * (i + 1));
        if (i < words.length - 1) delete (chunk.candidates[0] as Record<string, unknown>).finishReason;
        res.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
      }
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

interface GeminiRig {
  upstream: Awaited<ReturnType<typeof startGeminiUpstream>>;
  proxy: RunningProxy;
  eventsPath: string;
  log: ReturnType<typeof memoryLogger>;
  calls(): Promise<EventOf<'llm_call'>[]>;
  injections(): Promise<EventOf<'fault_injected'>[]>;
  /** The log and the events file, as written. */
  written(): Promise<string>;
}

let rig: GeminiRig | undefined;
afterEach(async () => {
  await rig?.proxy.close();
  await rig?.upstream.close();
  rig = undefined;
});

async function startGeminiRig(options: Partial<ProxyOptions> = {}): Promise<GeminiRig> {
  const upstream = await startGeminiUpstream();
  const eventsPath = join(scratchDir('intutic-proxy-gemini-'), 'events.jsonl');
  const log = memoryLogger();
  const proxy = await startProxy({
    upstreamGemini: upstream.url,
    eventsPath,
    logger: log,
    policy: policyFrom(EMPTY_POLICY),
    upstreamRetries: 0,
    placement: { mutatingAllowed: true, why: 'test' },
    ...options,
  });
  const events = eventsOf(proxy, eventsPath);
  const started: GeminiRig = {
    upstream,
    proxy,
    eventsPath,
    log,
    calls: async () => (await events()).filter((e): e is EventOf<'llm_call'> => e.type === 'llm_call'),
    injections: async () => (await events()).filter((e): e is EventOf<'fault_injected'> => e.type === 'fault_injected'),
    written: async () => {
      await events();
      return log.lines.join('') + readFileSync(eventsPath, { encoding: 'utf8', flag: 'a+' });
    },
  };
  rig = started;
  return started;
}

const GENERATE = '/v1beta/models/gemini-2.5-pro:generateContent';
const STREAM = '/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse';
const request = (extra: Record<string, unknown> = {}): string =>
  JSON.stringify({
    contents: [{ role: 'user', parts: [{ text: 'add lodash' }] }],
    systemInstruction: { parts: [{ text: 'You are careful.' }] },
    generationConfig: { temperature: 0 },
    ...extra,
  });
/** gemini-2.5-pro's price for the upstream's usage: input and cache_read apart, thinking billed as output. */
const proCost = (candidates: number): number => ((PROMPT - CACHED) * 1.25 + (candidates + THOUGHTS) * 10 + CACHED * 0.31) / 1e6;
const events = (body: Buffer): string[] => new SseSplitter().push(body).map((e) => e.toString('utf8'));
const errorOf = (body: Buffer) => (JSON.parse(body.toString()) as { error: { code: number; message: string; status: string; details?: unknown[] } }).error;

describe('pass-through', () => {
  it('relays a generateContent answer byte for byte and records its usage and cost', async () => {
    const r = await startGeminiRig();
    const direct = await rawPost(r.upstream.url, GENERATE, request());
    const res = await rawPost(r.proxy.url, GENERATE, request());
    expect(res.status).toBe(200);
    expect(res.body.equals(direct.body)).toBe(true);
    expect(r.upstream.seen.at(-1)!.body.toString()).toBe(request());
    const [call] = await r.calls();
    expect(call).toMatchObject({
      provider: 'gemini',
      endpoint: '/v1beta/models/{model}:generateContent',
      model: 'gemini-2.5-pro',
      status: 200,
      stream: false,
      input_tokens: PROMPT - CACHED,
      output_tokens: 50 + THOUGHTS,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: CACHED,
      priced_as_unknown: false,
    });
    expect(call!.cost_usd).toBeCloseTo(proCost(50), 9);
  });

  it('relays a streamGenerateContent stream byte for byte and takes the last chunk’s usage', async () => {
    const r = await startGeminiRig();
    const direct = await rawPost(r.upstream.url, STREAM, request());
    const res = await rawPost(r.proxy.url, STREAM, request());
    expect(res.status).toBe(200);
    expect(res.aborted).toBe(false);
    expect(res.body.equals(direct.body)).toBe(true);
    expect(events(res.body)).toHaveLength(4);
    const [call] = await r.calls();
    expect(call).toMatchObject({ endpoint: '/v1beta/models/{model}:streamGenerateContent', stream: true, output_tokens: 20 + THOUGHTS });
    expect(call!.cost_usd).toBeCloseTo(proCost(20), 9);
  });

  it('forwards countTokens (any API version) without recording a model call', async () => {
    const r = await startGeminiRig();
    const res = await rawPost(r.proxy.url, '/v1/models/gemini-2.5-flash:countTokens', request());
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.toString())).toEqual({ totalTokens: 42 });
    expect(r.upstream.seen.map((s) => s.url)).toEqual(['/v1/models/gemini-2.5-flash:countTokens']);
    expect(await r.calls()).toEqual([]);
  });

  it('answers an unknown path in Gemini’s format when the client is Gemini’s', async () => {
    const r = await startGeminiRig();
    for (const [path, headers] of [
      ['/v1beta/models/gemini-2.5-pro:embedContent', { 'x-goog-api-key': 'AIza-whatever' }],
      ['/v1beta/files?key=AIza-whatever', {}],
    ] as const) {
      const res = await rawPost(r.proxy.url, path, '{}', headers);
      expect(res.status).toBe(404);
      expect(errorOf(res.body)).toMatchObject({ code: 404, status: 'NOT_FOUND' });
      expect(res.body.toString()).not.toContain('AIza-whatever');
    }
    expect(r.upstream.seen).toEqual([]);
  });

  it('answers malformed and oversized bodies as Google does: 400 INVALID_ARGUMENT', async () => {
    const r = await startGeminiRig({ maxBodyBytes: 1024 });
    for (const body of ['{"contents": [', request({ padding: 'x'.repeat(2048) })]) {
      const res = await rawPost(r.proxy.url, GENERATE, body);
      expect(res.status).toBe(400);
      expect(errorOf(res.body)).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    }
    expect(r.upstream.seen).toEqual([]);
  });

  it('a rule blocking the Gemini host refuses the call with 403 PERMISSION_DENIED', async () => {
    const dir = scratchDir('intutic-proxy-gemini-policy-');
    const snapshot = join(dir, 'snapshot-rules.json');
    const rule = { id: 'no-gemini', subject: 'host', pattern: '127.0.0.1', action: 'block', mode: 'enforce', reason: 'not this provider' };
    writeFileSync(snapshot, JSON.stringify({ version: 1, rules: [rule] }));
    const r = await startGeminiRig({
      policy: undefined,
      env: { HOME: dir, INTUTIC_SNAPSHOT_RULES: snapshot, INTUTIC_APPROVED_BYPASSES: join(dir, 'none.json') },
    });
    const res = await rawPost(r.proxy.url, STREAM, request());
    expect(res.status).toBe(403);
    expect(errorOf(res.body)).toMatchObject({ code: 403, status: 'PERMISSION_DENIED', message: expect.stringContaining('no-gemini') });
    expect(r.upstream.seen).toEqual([]);
  });
});

describe('keys: the stand-in is swapped for the real key, any other refused', () => {
  const STAND_IN = 'AIzaSy-intutic-00112233445566778899aabbccddeeff0011223344556677';
  const REAL = 'AIzaSyD-real-key-never-written-9f8e7d6c5b4a';
  const WRONG = 'AIzaSyD-some-other-key-1a2b3c4d5e6f7a8b';
  const keys = { gemini: { standIn: STAND_IN, real: REAL } };

  it('in x-goog-api-key', async () => {
    const r = await startGeminiRig({ keys });
    expect((await rawPost(r.proxy.url, STREAM, request(), { 'x-goog-api-key': STAND_IN })).status).toBe(200);
    expect(r.upstream.seen[0]!.headers['x-goog-api-key']).toBe(REAL);
    expect(r.upstream.seen[0]!.url).toBe('/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse');
    expect(await r.written()).not.toContain(REAL);
  });

  it('in the key query parameter, the rest of the query as it came; countTokens too', async () => {
    const r = await startGeminiRig({ keys });
    expect((await rawPost(r.proxy.url, `${STREAM}&key=${STAND_IN}`, request())).status).toBe(200);
    expect((await rawPost(r.proxy.url, `/v1beta/models/gemini-2.5-pro:countTokens?key=${STAND_IN}`, request())).status).toBe(200);
    expect(r.upstream.seen.map((s) => s.url)).toEqual([
      `/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse&key=${REAL}`,
      `/v1beta/models/gemini-2.5-pro:countTokens?key=${REAL}`,
    ]);
    const written = await r.written();
    for (const key of [REAL, STAND_IN]) expect(written).not.toContain(key);
  });

  const refusals = [
    ['another key in x-goog-api-key', STREAM, { 'x-goog-api-key': WRONG }],
    ['the real key itself', GENERATE, { 'x-goog-api-key': REAL }],
    ['another key in ?key=', `${GENERATE}?key=${WRONG}`, {}],
    ['the stand-in in the header, another key in the query', `${STREAM}&key=${WRONG}`, { 'x-goog-api-key': STAND_IN }],
    ['the stand-in in the query, another key as a bearer token', `${GENERATE}?key=${STAND_IN}`, { authorization: `Bearer ${WRONG}` }],
  ] as const;
  for (const [name, path, headers] of refusals) {
    it(`refuses ${name} with 400 INVALID_ARGUMENT, reason API_KEY_INVALID, echoing no key`, async () => {
      const r = await startGeminiRig({ keys });
      const res = await rawPost(r.proxy.url, path, request(), headers);
      expect(res.status).toBe(400);
      const error = errorOf(res.body);
      expect(error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining('GEMINI_API_KEY') });
      expect(error.details).toEqual([expect.objectContaining({ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID' })]);
      for (const key of [REAL, WRONG, STAND_IN]) expect(res.body.toString()).not.toContain(key);
      expect(r.upstream.seen).toEqual([]);
      expect(await r.calls()).toEqual([]);
      const written = await r.written();
      expect(written).toMatch(/model call refused: not this sandbox's stand-in key provider=gemini/);
      for (const key of [REAL, WRONG]) expect(written).not.toContain(key);
    });
  }

  it('refuses a call with no key with 403 PERMISSION_DENIED', async () => {
    const r = await startGeminiRig({ keys });
    const res = await rawPost(r.proxy.url, STREAM, request());
    expect(res.status).toBe(403);
    expect(errorOf(res.body)).toMatchObject({ code: 403, status: 'PERMISSION_DENIED', message: expect.stringContaining('no API key was sent') });
    expect(r.upstream.seen).toEqual([]);
  });

  it('reads the Gemini stand-in and real key from the environment like the others', () => {
    expect(keySwapsFromEnv({ GEMINI_API_KEY: REAL, INTUTIC_STAND_IN_GEMINI_API_KEY: STAND_IN })).toEqual(keys);
    expect(() => keySwapsFromEnv({ INTUTIC_STAND_IN_GEMINI_API_KEY: STAND_IN })).toThrow(/INTUTIC_STAND_IN_GEMINI_API_KEY is set but GEMINI_API_KEY is not/);
  });
});

describe('llm.* faults in Gemini’s format', () => {
  const withFault = (fault: Partial<PlanFault> & Pick<PlanFault, 'id'>) => startGeminiRig({ plan: planWith([fault]) });

  it('llm.rate_limit: 429 RESOURCE_EXHAUSTED with RetryInfo, retry-after and the canary; the upstream is not called', async () => {
    const r = await withFault({ id: 'llm.rate_limit', match: { model: 'gemini-2.5-pro' }, options: { retry_after_s: 7 } });
    const res = await rawPost(r.proxy.url, STREAM, request());
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('7');
    const error = errorOf(res.body);
    expect(error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED', message: expect.stringContaining(`error id ${CANARY}`) });
    expect(error.details).toContainEqual({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' });
    expect(r.upstream.seen).toEqual([]);
    expect(await r.injections()).toMatchObject([{ fault_id: 'llm.rate_limit', target: 'gemini-2.5-pro', retry_after_s: 7 }]);
    expect(await r.calls()).toMatchObject([{ provider: 'gemini', status: 429, stream: true, cost_usd: 0 }]);
  });

  it('llm.upstream_5xx: 503 UNAVAILABLE with the canary', async () => {
    const r = await withFault({ id: 'llm.upstream_5xx', options: { status: 503 } });
    const res = await rawPost(r.proxy.url, GENERATE, request());
    expect(res.status).toBe(503);
    expect(errorOf(res.body)).toMatchObject({ code: 503, status: 'UNAVAILABLE', message: expect.stringContaining(CANARY) });
    expect(r.upstream.seen).toEqual([]);
  });

  it('llm.upstream_5xx with stream_cut_after_chunks: N chunks as sent, then an error chunk, then the connection drops', async () => {
    const r = await withFault({ id: 'llm.upstream_5xx', options: { stream_cut_after_chunks: 2 }, times: 1 });
    const direct = events((await rawPost(r.upstream.url, STREAM, request())).body);
    const cut = await rawPost(r.proxy.url, STREAM, request());
    expect(cut.status).toBe(200);
    expect(cut.aborted).toBe(true);
    const got = events(cut.body);
    expect(got).toHaveLength(3);
    expect(got.slice(0, 2)).toEqual(direct.slice(0, 2));
    // @google/genai raises an ApiError for a chunk that is an error object with a 4xx/5xx code.
    expect(got[2]).toMatch(/^data: \{"error":\{"code":500,.*\}\}\r\n\r\n$/);
    expect(errorOf(Buffer.from(got[2]!.slice('data: '.length)))).toMatchObject({ status: 'INTERNAL', message: expect.stringContaining(`error id ${CANARY}`) });
    expect(await r.injections()).toMatchObject([{ fault_id: 'llm.upstream_5xx', detail: expect.stringContaining('after 2 event') }]);
    // The rest of the stream is still read: the call is charged in full.
    expect(await r.calls()).toMatchObject([{ output_tokens: 20 + THOUGHTS }]);
  });

  it('llm.context_trim drops the oldest contents and systemInstruction, and the API still accepts the history', async () => {
    const r = await withFault({ id: 'llm.context_trim', options: { drop_oldest: 2, drop_system: true } });
    const call = (i: number) => ({ role: 'model', parts: [{ functionCall: { name: 'run_shell_command', args: { command: `step ${i}` } } }] });
    const result = (i: number) => ({ role: 'user', parts: [{ functionResponse: { name: 'run_shell_command', response: { output: `out ${i}` } } }] });
    const contents = [{ role: 'user', parts: [{ text: 'add lodash' }] }, call(1), result(1), call(2), result(2)];
    const res = await rawPost(r.proxy.url, STREAM, request({ contents }));
    expect(res.status).toBe(200);
    const sent = JSON.parse(r.upstream.seen[0]!.body.toString()) as Record<string, unknown>;
    expect(sent.systemInstruction).toBeUndefined();
    expect(sent.contents).toEqual([{ role: 'user', parts: [{ text: 'Tool result: out 1' }] }, call(2), result(2)]);
    expect(sent.generationConfig).toEqual({ temperature: 0 });
    expect(await r.injections()).toMatchObject([{ fault_id: 'llm.context_trim', detail: 'dropped 2 oldest message(s) and the system prompt' }]);
  });

  it('llm.model_degrade puts the other model in the path, leaves the body as sent, and charges the model served', async () => {
    const r = await withFault({ id: 'llm.model_degrade', match: { model: 'gemini-2.5-pro' }, options: { to_model: 'gemini-2.5-flash' } });
    const res = await rawPost(r.proxy.url, `${STREAM}&$alt=json`, request());
    expect(res.status).toBe(200);
    expect(r.upstream.seen[0]!.url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&$alt=json');
    expect(r.upstream.seen[0]!.body.toString()).toBe(request());
    const [call] = await r.calls();
    expect(call).toMatchObject({ model: 'gemini-2.5-flash', endpoint: '/v1beta/models/{model}:streamGenerateContent' });
    expect(call!.cost_usd).toBeCloseTo(((PROMPT - CACHED) * 0.3 + (20 + THOUGHTS) * 2.5 + CACHED * 0.075) / 1e6, 9);
    expect(await r.injections()).toMatchObject([{ fault_id: 'llm.model_degrade', target: 'gemini-2.5-pro', detail: 'served by gemini-2.5-flash instead' }]);
  });
});
