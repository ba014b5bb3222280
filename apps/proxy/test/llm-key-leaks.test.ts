// No part of a real provider key leaves the proxy. The proxy holds each provider's real key (it
// swaps the sandbox's stand-in for it upstream); a provider's error answer may quote that key — OpenAI's
// 401 prints it masked, Google's 403 names it whole ("Consumer 'api_key:AIza…'"), a gateway may echo
// any of it — and a malformed request used to be quoted back in the proxy's 400 and its log (V8's
// JSON.parse messages quote the input). Here an upstream on loopback answers with such bodies: whole
// keys, 6-character middle slices, masked forms as OpenAI and Anthropic print them, gzip-encoded,
// split across reads, and as error events inside 200 streams. Every answer the client got, every log
// line and every file the proxy wrote is then searched for every 6-character window of every key.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDir } from '@intutic/testkit';
import { EMPTY_POLICY } from '@intutic/governance';
import { policyFrom, startProxy, type KeySwaps, type RunningProxy } from '../src/index.ts';
import { KeyFragments } from '../src/llm/key-fragments.ts';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const random = (n: number, alphabet = `${ALPHABET}_-`): string =>
  Array.from({ length: n }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join('');
// The shapes the providers issue: Anthropic's sk-ant-api03-…AA (108 characters), OpenAI's project keys
// (164, with the base64 of "OpenAI" in the middle), Google's AIzaSy… (39).
const KEYS = {
  anthropic: `sk-ant-api03-${random(93)}AA`,
  openai: `sk-proj-${random(74, ALPHABET)}T3BlbkFJ${random(74, ALPHABET)}`,
  gemini: `AIzaSy${random(33)}`,
};
const STAND_INS = {
  anthropic: 'sk-ant-api03-intutic-stand-in-00112233445566778899aabbccddeeff',
  openai: 'sk-intutic-stand-in-8899aabbccddeeff00112233445566778899aabb',
  gemini: 'intutic-stand-in-gemini-0123456789abcdef',
};
const SWAPS: KeySwaps = {
  anthropic: { standIn: STAND_INS.anthropic, real: KEYS.anthropic },
  openai: { standIn: STAND_INS.openai, real: KEYS.openai },
  gemini: { standIn: STAND_INS.gemini, real: KEYS.gemini },
};
type Provider = keyof typeof KEYS;

/** Where a call goes, with the sandbox's stand-in where its client puts it. */
const ROUTES = {
  anthropic: { path: '/v1/messages', headers: { 'x-api-key': STAND_INS.anthropic, 'anthropic-version': '2023-06-01' } },
  openai: { path: '/v1/chat/completions', headers: { authorization: `Bearer ${STAND_INS.openai}` } },
  responses: { path: '/v1/responses', headers: { authorization: `Bearer ${STAND_INS.openai}` } },
  gemini: { path: '/v1beta/models/gemini-2.5-pro:generateContent', headers: { 'x-goog-api-key': STAND_INS.gemini } },
  geminiStream: { path: '/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse', headers: { 'x-goog-api-key': STAND_INS.gemini } },
} as const;
type Route = keyof typeof ROUTES;
const BODIES: Record<Route, string> = {
  anthropic: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }),
  openai: JSON.stringify({ model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }] }),
  responses: JSON.stringify({ model: 'gpt-5-codex', input: 'hi', stream: true }),
  gemini: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
  geminiStream: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
};

/** The masked forms providers and consoles print, and the bare 6-character slices. */
const last4 = (k: string): string => k.slice(-4);
const masked = {
  // OpenAI's 401 for a project key: the prefix, a run of stars, the last four.
  openaiProject: `sk-proj-${'*'.repeat(156)}${last4(KEYS.openai)}`,
  // OpenAI's 401 for a legacy key: sk-, five characters, stars, the last four.
  openaiLegacy: `${KEYS.openai.slice(0, 8)}***************************************${last4(KEYS.openai)}`,
  // As Anthropic's console lists a key: the prefix, three characters, an ellipsis, the last four.
  anthropicConsole: `${KEYS.anthropic.slice(0, 16)}...${last4(KEYS.anthropic)}`,
  // Forms without six consecutive characters of a key: only the last four, after a mask or the scheme.
  dots: `sk-...${last4(KEYS.openai)}`,
  ellipsis: `sk-ant-…${last4(KEYS.anthropic)}`,
  stars: `****************${last4(KEYS.anthropic)}`,
  prefixLast4: `sk-${last4(KEYS.openai)}`,
  endingIn: `key ending in ${last4(KEYS.gemini)}`,
};

/** One scripted answer: status, headers, and the body written in these parts, a pause between them (separate reads). */
interface Answer {
  status: number;
  headers?: Record<string, string>;
  parts: Array<string | Buffer>;
}

let upstream: Server;
let upstreamUrl = '';
let next: Answer | null = null;
const upstreamSeen: Array<{ url: string; headers: IncomingMessage['headers'] }> = [];
let proxy: RunningProxy;
let dir = '';
/** Every answer the client got, as text: status line, headers and body. */
const answers: string[] = [];

beforeAll(async () => {
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      upstreamSeen.push({ url: req.url ?? '', headers: req.headers });
      const answer = next ?? { status: 500, parts: ['{"error":"the test scripted no answer"}'] };
      next = null;
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      void (async () => {
        for (const part of answer.parts) {
          res.write(part);
          await new Promise((r) => setTimeout(r, 15));
        }
        res.end();
      })();
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  dir = scratchDir('intutic-proxy-key-leaks-');
  proxy = await startProxy({
    upstreamAnthropic: upstreamUrl,
    upstreamOpenai: upstreamUrl,
    upstreamGemini: upstreamUrl,
    eventsPath: join(dir, 'events.jsonl'),
    logPath: join(dir, 'proxy.log'),
    caOutPath: join(dir, 'ca.pem'),
    policy: policyFrom(EMPTY_POLICY),
    upstreamRetries: 0,
    keys: SWAPS,
  });
});

afterAll(async () => {
  await proxy?.close();
  upstream?.closeAllConnections();
  await new Promise((r) => upstream?.close(r));
});

interface Got {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
  text: string;
}

/** POST to the proxy as the agent's client would, by the fast lane or (chunked) through node:http; the answer is kept for the sweep. */
function post(route: Route, body: string | Buffer = BODIES[route], options: { chunked?: boolean } = {}): Promise<Got> {
  return new Promise((resolve, reject) => {
    const { path, headers } = ROUTES[route];
    const req = request(new URL(path, proxy.url), { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      const done = (): void => {
        const got = Buffer.concat(chunks);
        answers.push(`${res.statusCode} ${JSON.stringify(res.headers)}\n${got.toString('latin1')}`);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: got, text: got.toString('utf8') });
      };
      res.on('close', done);
    });
    req.on('error', reject);
    if (options.chunked) {
      req.setHeader('transfer-encoding', 'chunked');
      req.write(body);
      req.end();
    } else {
      req.end(body);
    }
  });
}

/** The 6-character windows of `key` that `text` holds (the whole point: none). */
function windowsIn(text: string, key: string): string[] {
  const found: string[] = [];
  for (let i = 0; i + 6 <= key.length; i++) if (text.includes(key.slice(i, i + 6))) found.push(`${i}:${key.slice(i, i + 6)}`);
  return found;
}

function expectNoKeyIn(text: string, where: string): void {
  for (const [provider, key] of Object.entries(KEYS)) expect(windowsIn(text, key), `${where} quotes the ${provider} key`).toEqual([]);
}

const json = (value: unknown): string => JSON.stringify(value, null, 4);
const openaiError = (message: string, code: string | null = 'invalid_api_key'): string =>
  json({ error: { message, type: 'invalid_request_error', param: null, code } });
const anthropicError = (type: string, message: string): string =>
  JSON.stringify({ type: 'error', error: { type, message }, request_id: 'req_011CUx5u2HPvYc8kcCTbbn6p' });
const geminiError = (code: number, status: string, message: string): string => json({ error: { code, message, status } });

describe("a provider's error answer that quotes the real key is replaced by the proxy's own", () => {
  const cases: Array<{ name: string; route: Route; provider: Provider; answer: Answer; type: Record<string, unknown>; chunked?: boolean }> = [
    {
      name: "OpenAI's 401 for a project key (prefix, stars, last four)",
      route: 'openai',
      provider: 'openai',
      answer: {
        status: 401,
        parts: [openaiError(`Incorrect API key provided: ${masked.openaiProject}. You can find your API key at https://platform.openai.com/account/api-keys.`)],
      },
      type: { error: { type: 'invalid_request_error', code: 'invalid_api_key' } },
    },
    {
      name: "OpenAI's 401 for a legacy key, gzip-encoded",
      route: 'responses',
      provider: 'openai',
      answer: {
        status: 401,
        headers: { 'content-encoding': 'gzip', 'x-request-id': 'req_5c1f0e8a' },
        parts: [
          gzipSync(
            openaiError(`Incorrect API key provided: ${masked.openaiLegacy}. You can find your API key at https://platform.openai.com/account/api-keys.`),
          ),
        ],
      },
      type: { error: { code: 'invalid_api_key' } },
    },
    {
      name: "OpenAI's 401 as only the last four after dots (no six characters of the key)",
      route: 'openai',
      provider: 'openai',
      answer: { status: 401, parts: [openaiError(`Incorrect API key provided: ${masked.dots}.`)] },
      type: { error: { code: 'invalid_api_key' } },
      chunked: true,
    },
    {
      name: 'OpenAI: the scheme prefix and the last four',
      route: 'openai',
      provider: 'openai',
      answer: { status: 403, parts: [openaiError(`Project key ${masked.prefixLast4} has no access to model gpt-5.`, 'model_not_found')] },
      type: { error: { code: 'model_not_found' } },
    },
    {
      name: 'Anthropic: a key as its console lists it',
      route: 'anthropic',
      provider: 'anthropic',
      answer: { status: 401, parts: [anthropicError('authentication_error', `invalid x-api-key ${masked.anthropicConsole}`)] },
      type: { type: 'error', error: { type: 'authentication_error' } },
    },
    {
      name: 'Anthropic: stars and the last four, in a 403',
      route: 'anthropic',
      provider: 'anthropic',
      answer: { status: 403, parts: [anthropicError('permission_error', `API key ${masked.stars} is disabled for this organization`)] },
      type: { error: { type: 'permission_error' } },
    },
    {
      name: 'Anthropic: an ellipsis and the last four, split across reads (streamed, chunked)',
      route: 'anthropic',
      provider: 'anthropic',
      answer: {
        status: 400,
        parts: ['{"type":"error","error":{"type":"invalid_request_error","message":"key sk-ant-', `…${last4(KEYS.anthropic)} not valid here"}}`],
      },
      type: { error: { type: 'invalid_request_error' } },
    },
    {
      name: 'a gateway quoting the Anthropic key whole in a 500',
      route: 'anthropic',
      provider: 'anthropic',
      answer: { status: 500, headers: { 'content-type': 'text/plain' }, parts: [`upstream rejected x-api-key=${KEYS.anthropic}`] },
      type: { error: { type: 'api_error' } },
    },
    {
      name: 'a 6-character middle slice of the OpenAI key, split across reads',
      route: 'openai',
      provider: 'openai',
      answer: {
        status: 400,
        parts: [
          `{"error":{"message":"bad key part ${KEYS.openai.slice(80, 83)}`,
          `${KEYS.openai.slice(83, 86)}","type":"invalid_request_error","param":null,"code":null}}`,
        ],
      },
      type: { error: { type: 'invalid_request_error' } },
    },
    {
      name: "Google's 403 naming the key whole (a suspended consumer)",
      route: 'gemini',
      provider: 'gemini',
      answer: { status: 403, parts: [geminiError(403, 'PERMISSION_DENIED', `Permission denied: Consumer 'api_key:${KEYS.gemini}' has been suspended.`)] },
      type: { error: { code: 403, status: 'PERMISSION_DENIED' } },
    },
    {
      name: 'Google: a 6-character middle slice, JSON-escaped',
      route: 'gemini',
      provider: 'gemini',
      answer: {
        status: 400,
        parts: [
          geminiError(400, 'INVALID_ARGUMENT', 'API key not valid: ...').replace(
            '...',
            [...KEYS.gemini.slice(10, 16)].map((c) => `\\u00${c.charCodeAt(0).toString(16)}`).join(''),
          ),
        ],
      },
      type: { error: { code: 400, status: 'INVALID_ARGUMENT' } },
    },
    {
      name: 'Google: "ending in" and the last four',
      route: 'gemini',
      provider: 'gemini',
      answer: { status: 429, headers: { 'retry-after': '7' }, parts: [geminiError(429, 'RESOURCE_EXHAUSTED', `Quota exceeded for the ${masked.endingIn}.`)] },
      type: { error: { code: 429, status: 'RESOURCE_EXHAUSTED' } },
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      next = c.answer;
      const got = await post(c.route, BODIES[c.route], { chunked: c.chunked ?? false });
      // The provider's status, in the provider's own error format, saying what happened and not what it wrote.
      expect(got.status).toBe(c.answer.status);
      expect(got.headers['content-type']).toBe('application/json');
      const body = JSON.parse(got.text) as Record<string, unknown>;
      expect(body).toMatchObject(c.type);
      expect(got.text).toContain(`answered ${c.answer.status}`);
      expect(got.text).toContain('withheld');
      expectNoKeyIn(got.text, 'the answer');
      // The masked forms hold no six characters of a key: none of a key's last four may remain either.
      for (const key of Object.values(KEYS)) expect(got.text).not.toContain(last4(key));
      if (c.answer.headers?.['retry-after']) expect(got.headers['retry-after']).toBe(c.answer.headers['retry-after']);
      expect(upstreamSeen.at(-1)!.headers).toMatchObject(
        c.provider === 'anthropic'
          ? { 'x-api-key': KEYS.anthropic }
          : c.provider === 'openai'
            ? { authorization: `Bearer ${KEYS.openai}` }
            : { 'x-goog-api-key': KEYS.gemini },
      );
    });
  }

  it('passes an error answer that quotes no key as it came, byte for byte, gzip included', async () => {
    const plain = openaiError('Incorrect API key provided: the key you sent. You can find your API key at https://platform.openai.com/account/api-keys.');
    next = { status: 401, headers: { 'x-request-id': 'req_1' }, parts: [plain] };
    const got = await post('openai');
    expect(got.status).toBe(401);
    expect(got.text).toBe(plain);
    expect(got.headers['x-request-id']).toBe('req_1');
    const zipped = gzipSync(anthropicError('overloaded_error', 'Overloaded'));
    next = { status: 529, headers: { 'content-encoding': 'gzip' }, parts: [zipped.subarray(0, 10), zipped.subarray(10)] };
    const overloaded = await post('anthropic');
    expect(overloaded.status).toBe(529);
    expect(overloaded.headers['content-encoding']).toBe('gzip');
    expect(overloaded.body.equals(zipped)).toBe(true);
  });
});

/** A 200 stream: events, each written as it comes. */
const sse = (parts: string[]): Answer => ({ status: 200, headers: { 'content-type': 'text/event-stream' }, parts });

describe("an error event inside a 200 stream that quotes the key is replaced by the proxy's own error event", () => {
  const anthropicStart =
    'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":12,"output_tokens":1}}}\n\n' +
    'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n';
  const anthropicDelta = 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Working on it"}}\n\n';
  const chatChunk =
    'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1750000000,"model":"gpt-5","choices":[{"index":0,"delta":{"content":"Working"},"finish_reason":null}]}\n\n';
  const responsesCreated =
    'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","error":null,"model":"gpt-5-codex","output":[]}}\n\n';
  const geminiChunk = 'data: {"candidates":[{"content":{"parts":[{"text":"Working"}],"role":"model"},"index":0}],"modelVersion":"gemini-2.5-pro"}\r\n\r\n';

  const cases: Array<{ name: string; route: Route; before: string; error: string[]; says: RegExp }> = [
    {
      name: "Anthropic's event: error, the key's middle slice split across reads",
      route: 'anthropic',
      before: anthropicStart + anthropicDelta,
      error: [
        `event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded for key ${KEYS.anthropic.slice(30, 33)}`,
        `${KEYS.anthropic.slice(33, 40)}"}}\n\n`,
      ],
      says: /^event: error\ndata: \{"type":"error","error":\{"type":"overloaded_error","message":"intutic proxy: [^\n]*withheld[^\n]*"\}\}\n\n$/,
    },
    {
      name: "OpenAI chat's error chunk, its marker split across reads, quoting the key masked",
      route: 'openai',
      before: chatChunk,
      error: [
        'data: {"err',
        `or": {"message": "Incorrect API key provided: ${masked.openaiProject}.", "type": "invalid_request_error", "code": "invalid_api_key"}}\n\n`,
      ],
      says: /^data: \{"error":\{"message":"intutic proxy: [^\n]*withheld[^\n]*"\}\}\n\n$/,
    },
    {
      name: "the Responses API's response.failed, quoting only dots and the last four",
      route: 'responses',
      before: responsesCreated,
      error: [
        `event: response.failed\ndata: {"type":"response.failed","sequence_number":3,"response":{"id":"resp_1","status":"failed","error":{"code":"invalid_api_key","message":"Incorrect API key provided: ${masked.dots}"}}}\n\n`,
      ],
      says: /^event: response\.failed\ndata: \{"type":"response\.failed","response":\{"status":"failed","error":\{[^\n]*withheld[^\n]*\}\n\n$/,
    },
    {
      name: "Gemini's error chunk naming the key whole",
      route: 'geminiStream',
      before: geminiChunk,
      error: [
        `data: {"error": {"code": 403, "message": "Permission denied: Consumer 'api_key:${KEYS.gemini}' has been suspended.", "status": "PERMISSION_DENIED"}}\r\n\r\n`,
      ],
      says: /^data: \{"error":\{"code":403,"message":"intutic proxy: [^\n]*withheld[^\n]*","status":"PERMISSION_DENIED"\}\}\r\n\r\n$/,
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      next = sse([c.before, ...c.error]);
      const got = await post(c.route);
      expect(got.status).toBe(200);
      // What came before the error event arrives as it was; the proxy's event ends the stream in its place.
      expect(got.text.startsWith(c.before)).toBe(true);
      expect(got.text.slice(c.before.length)).toMatch(c.says);
      expectNoKeyIn(got.text, 'the stream');
      for (const key of Object.values(KEYS)) expect(got.text).not.toContain(last4(key));
    });
  }

  it('passes a stream whose error event quotes no key, and one whose text only speaks of errors, as they came', async () => {
    const overloaded = 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
    next = sse([anthropicStart, anthropicDelta, overloaded]);
    expect((await post('anthropic')).text).toBe(anthropicStart + anthropicDelta + overloaded);
    // Model text (escaped quotes) naming "error": content never trips the guard.
    const talk =
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"return {\\"error\\": e}"}}\n\n';
    next = sse([anthropicStart, talk, talk]);
    expect((await post('anthropic')).text).toBe(anthropicStart + talk + talk);
  });
});

describe('a malformed request body is never quoted back, nor logged', () => {
  // What an agent might send: key-like text (the real keys' public prefixes are 6-character windows
  // of them) and a marker, where V8's JSON.parse message would quote them.
  const MARK = 'Zq9MRK';
  const bodies: Array<[Route, string]> = [
    ['openai', `sk-proj-${MARK} {not json`],
    ['anthropic', `{"model":"claude-sonnet-4-5","x": sk-ant-api03-${MARK}}`],
    ['gemini', `[1, ${MARK}-AIzaSy]`],
    ['responses', `AIzaSy${MARK}`],
  ];
  for (const [route, body] of bodies) {
    it(`${route}: ${body.slice(0, 24)}…`, async () => {
      const before = upstreamSeen.length;
      for (const chunked of [false, true]) {
        const got = await post(route, body, { chunked });
        expect(got.status).toBe(400);
        expect(got.text).toMatch(/not valid JSON/);
        expect(got.text).not.toContain(MARK);
        expectNoKeyIn(got.text, 'the 400');
      }
      expect(upstreamSeen.length).toBe(before);
    });
  }
});

describe('the check itself', () => {
  const fragments = new KeyFragments(Object.values(KEYS));
  it('finds every masked form, and nothing in text that only resembles one', () => {
    for (const [form, text] of Object.entries(masked)) expect(fragments.found(`message: ${text}.`), form).toBe(true);
    // Four characters in no key's last four (a reversed last four shares the last three when the second
    // and fourth agree, one run in 62, and a mask before a key's last three is a masked form).
    const tails = `${Object.values(KEYS).map(last4).join('')}wxyz`;
    const unlike = [...ALPHABET]
      .filter((c) => !tails.includes(c))
      .slice(0, 4)
      .join('');
    expect(fragments.found(`sk-...${unlike} and ****wxyz`)).toBe(false);
    expect(fragments.found('Incorrect API key provided: the key you sent.')).toBe(false);
  });

  it('stays linear on a megabyte of mask characters (an error body is not trusted to be small or kind)', () => {
    // A backtracking pattern over runs of stars takes minutes here; the check takes milliseconds.
    for (const c of ['*', '.', 'x', '…']) expect(fragments.found(c.repeat(1024 * 1024))).toBe(false);
  });
});

/** Every file under `root`, as text. */
function filesUnder(root: string): Array<[string, string]> {
  return readdirSync(root).flatMap((name): Array<[string, string]> => {
    const path = join(root, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [[path, readFileSync(path, 'latin1')]];
  });
}

it('nothing the proxy answered, logged or wrote holds six characters of any key', async () => {
  await proxy.close();
  const files = filesUnder(dir);
  expect(files.map(([path]) => path)).toEqual(expect.arrayContaining([join(dir, 'proxy.log'), join(dir, 'events.jsonl')]));
  // The proxy did log the withheld answers and the refused bodies, without their content.
  const log = readFileSync(join(dir, 'proxy.log'), 'utf8');
  expect(log).toMatch(/upstream error answer withheld provider=openai .*status=401/);
  expect(log).toMatch(/upstream stream's error event withheld provider=gemini/);
  expect(log).toMatch(/malformed request refused .*error="not valid JSON/);
  expect(log).not.toContain('MRK');
  expect(answers.length).toBeGreaterThan(20);
  for (const [path, text] of files) expectNoKeyIn(text, path);
  answers.forEach((answer, i) => expectNoKeyIn(answer, `answer ${i}`));
});
