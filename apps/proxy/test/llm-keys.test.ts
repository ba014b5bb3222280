// Provider keys stay on the host: given a stand-in per provider, the proxy sends the real key upstream
// in the stand-in's place (every header a provider's clients put keys in), refuses any other key —
// the real one included — with a 401 in the provider's own format that the SDKs raise as their
// AuthenticationError, and never writes a key into its log or events. Without a stand-in for a
// provider, the client's key is forwarded as it came (`intutic start` on the host).
import { readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { isIntuticError } from '@intutic/errors';
import { keySwapsFromEnv, type KeySwaps } from '../src/index.ts';
import { anthropicRequest, chatRequest, rawPost, responsesRequest, startRig, type Rig } from './llm-fixtures.ts';

const randomKey = (prefix: string, length: number): string => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';
  return prefix + Array.from({ length }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join('');
};
const REAL_ANTHROPIC = randomKey('sk-ant-api03-', 90);
const REAL_OPENAI = randomKey('sk-proj-', 120);
const STAND_IN_ANTHROPIC = 'sk-ant-api03-intutic-00112233445566778899aabbccddeeff0011223344556677';
const STAND_IN_OPENAI = 'sk-intutic-8899aabbccddeeff00112233445566778899aabbccddeeff00112233';
const SWAPS: KeySwaps = {
  anthropic: { standIn: STAND_IN_ANTHROPIC, real: REAL_ANTHROPIC },
  openai: { standIn: STAND_IN_OPENAI, real: REAL_OPENAI },
};
const ANTHROPIC_HEADERS = { 'anthropic-version': '2023-06-01' };

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  if (rig) rmSync(dirname(rig.eventsPath), { recursive: true, force: true });
  rig = undefined;
});

async function rigWith(keys: KeySwaps | undefined): Promise<Rig> {
  rig = await startRig({ side_requests: 'never', after_last: 'repeat_last', turns: [{ text: 'OK' }] }, keys ? { keys } : {});
  return rig;
}

/** The key headers of the one request the upstream received since `before`. */
function receivedSince(r: Rig, before: number): Record<string, unknown> {
  const got = r.model.requests.slice(before);
  expect(got).toHaveLength(1);
  const headers = got[0]!.headers;
  return { 'x-api-key': headers['x-api-key'], authorization: headers.authorization, 'api-key': headers['api-key'] };
}

/** Neither the log nor the events file holds any of `secrets`. */
async function expectNoneWritten(r: Rig, secrets: string[]): Promise<void> {
  await r.events();
  const written = r.log.lines.join('') + readFileSync(r.eventsPath, { encoding: 'utf8', flag: 'a+' });
  for (const secret of secrets) expect(written).not.toContain(secret);
}

describe('with stand-ins: the real key goes upstream in their place', () => {
  const cases = [
    ['Anthropic x-api-key', '/v1/messages', anthropicRequest(), { ...ANTHROPIC_HEADERS, 'x-api-key': STAND_IN_ANTHROPIC }, { 'x-api-key': REAL_ANTHROPIC }],
    [
      'Anthropic bearer token',
      '/v1/messages?beta=true',
      anthropicRequest({ stream: true }),
      { ...ANTHROPIC_HEADERS, authorization: `Bearer ${STAND_IN_ANTHROPIC}` },
      { authorization: `Bearer ${REAL_ANTHROPIC}` },
    ],
    [
      'Anthropic count_tokens',
      '/v1/messages/count_tokens',
      anthropicRequest(),
      { ...ANTHROPIC_HEADERS, 'x-api-key': STAND_IN_ANTHROPIC },
      { 'x-api-key': REAL_ANTHROPIC },
    ],
    [
      'OpenAI chat bearer token',
      '/v1/chat/completions',
      chatRequest({ stream: true }),
      { authorization: `Bearer ${STAND_IN_OPENAI}` },
      { authorization: `Bearer ${REAL_OPENAI}` },
    ],
    [
      'OpenAI Responses bearer token',
      '/v1/responses',
      responsesRequest(),
      { authorization: `bearer ${STAND_IN_OPENAI}` },
      { authorization: `Bearer ${REAL_OPENAI}` },
    ],
    ['Azure-style api-key', '/v1/chat/completions', chatRequest(), { 'api-key': STAND_IN_OPENAI }, { 'api-key': REAL_OPENAI }],
  ] as const;
  for (const [name, path, body, sent, expected] of cases) {
    it(name, async () => {
      const r = await rigWith(SWAPS);
      const before = r.model.requests.length;
      const response = await rawPost(r.proxy.url, path, body, sent);
      expect(response.status, response.body.toString()).toBe(200);
      expect(receivedSince(r, before)).toEqual({ 'x-api-key': undefined, authorization: undefined, 'api-key': undefined, ...expected });
      await expectNoneWritten(r, [REAL_ANTHROPIC, REAL_OPENAI]);
    });
  }

  it('the official SDKs take the stand-ins as keys and get their answers', async () => {
    const r = await rigWith(SWAPS);
    const anthropic = new Anthropic({ baseURL: r.proxy.url, apiKey: STAND_IN_ANTHROPIC, maxRetries: 0 });
    const openai = new OpenAI({ baseURL: `${r.proxy.url}/v1`, apiKey: STAND_IN_OPENAI, maxRetries: 0 });
    const message = await anthropic.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'OK' });
    const chat = await openai.chat.completions.create({ model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.choices[0]?.message.content).toBe('OK');
    // Whichever header each SDK puts its key in, the upstream saw the real key there and no stand-in.
    const [toAnthropic, toOpenai] = r.model.requests.map((q) => JSON.stringify(q.headers));
    expect(toAnthropic).toContain(REAL_ANTHROPIC);
    expect(toOpenai).toContain(`Bearer ${REAL_OPENAI}`);
    for (const seen of [toAnthropic, toOpenai]) expect(seen).not.toMatch(/intutic-[0-9a-f]{48}/);
  });
});

describe('with stand-ins: any other key is refused with a 401 in the provider format', () => {
  const WRONG_ANTHROPIC = randomKey('sk-ant-api03-', 90);
  const WRONG_OPENAI = randomKey('sk-proj-', 120);

  const anthropicRefusals = [
    ['another x-api-key', { 'x-api-key': WRONG_ANTHROPIC }],
    ['the real key itself', { 'x-api-key': REAL_ANTHROPIC }],
    ['another bearer token', { authorization: `Bearer ${WRONG_ANTHROPIC}` }],
    ['the stand-in beside another key', { 'x-api-key': STAND_IN_ANTHROPIC, authorization: `Bearer ${WRONG_ANTHROPIC}` }],
    ["OpenAI's stand-in", { 'x-api-key': STAND_IN_OPENAI }],
    ['another key in api-key beside the stand-in', { 'x-api-key': STAND_IN_ANTHROPIC, 'api-key': WRONG_ANTHROPIC }],
    ['no key at all', {}],
  ] as const;
  for (const [name, headers] of anthropicRefusals) {
    it(`Anthropic: ${name}`, async () => {
      const r = await rigWith(SWAPS);
      const response = await rawPost(r.proxy.url, '/v1/messages', anthropicRequest(), { ...ANTHROPIC_HEADERS, ...headers });
      expect(response.status).toBe(401);
      expect(response.headers['content-type']).toBe('application/json');
      const body = JSON.parse(response.body.toString()) as { type: string; error: { type: string; message: string } };
      expect(body).toEqual({ type: 'error', error: { type: 'authentication_error', message: expect.stringContaining('stand-in') } });
      expect(body.error.message).toContain('ANTHROPIC_API_KEY');
      for (const key of [REAL_ANTHROPIC, WRONG_ANTHROPIC, STAND_IN_ANTHROPIC]) expect(response.body.toString()).not.toContain(key);
      expect(r.model.requests).toEqual([]);
      expect(await r.calls()).toEqual([]);
      expect(r.log.lines.join('')).toMatch(/model call refused: not this sandbox's stand-in key provider=anthropic/);
      await expectNoneWritten(r, [REAL_ANTHROPIC, WRONG_ANTHROPIC]);
    });
  }

  const openaiRefusals = [
    ['another bearer token', '/v1/chat/completions', chatRequest(), { authorization: `Bearer ${WRONG_OPENAI}` }],
    ['the real key itself', '/v1/responses', responsesRequest(), { authorization: `Bearer ${REAL_OPENAI}` }],
    ['a non-bearer authorization', '/v1/chat/completions', chatRequest(), { authorization: STAND_IN_OPENAI }],
    ['the stand-in beside another api-key', '/v1/chat/completions', chatRequest(), { authorization: `Bearer ${STAND_IN_OPENAI}`, 'api-key': WRONG_OPENAI }],
    ['no key at all', '/v1/chat/completions', chatRequest(), {}],
  ] as const;
  for (const [name, path, body, headers] of openaiRefusals) {
    it(`OpenAI: ${name}`, async () => {
      const r = await rigWith(SWAPS);
      const response = await rawPost(r.proxy.url, path, body, headers);
      expect(response.status).toBe(401);
      const parsed = JSON.parse(response.body.toString()) as { error: { message: string } };
      expect(parsed).toEqual({ error: { message: expect.stringContaining('stand-in'), type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
      expect(parsed.error.message).toContain('OPENAI_API_KEY');
      for (const key of [REAL_OPENAI, WRONG_OPENAI, STAND_IN_OPENAI]) expect(response.body.toString()).not.toContain(key);
      expect(r.model.requests).toEqual([]);
      await expectNoneWritten(r, [REAL_OPENAI, WRONG_OPENAI]);
    });
  }

  it('the official SDKs raise their AuthenticationError', async () => {
    const r = await rigWith(SWAPS);
    const anthropic = new Anthropic({ baseURL: r.proxy.url, apiKey: WRONG_ANTHROPIC, maxRetries: 0 });
    const openai = new OpenAI({ baseURL: `${r.proxy.url}/v1`, apiKey: WRONG_OPENAI, maxRetries: 0 });
    const a = await anthropic.messages
      .create({ model: 'claude-sonnet-5-5', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(a).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((a as Error).message).toContain('stand-in');
    const o = await openai.chat.completions.create({ model: 'gpt-5', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(o).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((o as InstanceType<typeof OpenAI.APIError>).code).toBe('invalid_api_key');
    expect(r.model.requests).toEqual([]);
  });
});

describe('without a stand-in for a provider, the client key is forwarded unchanged', () => {
  it('with no stand-ins at all (intutic start on the host)', async () => {
    const r = await rigWith(undefined);
    const key = randomKey('sk-ant-api03-', 90);
    let before = r.model.requests.length;
    expect((await rawPost(r.proxy.url, '/v1/messages', anthropicRequest(), { ...ANTHROPIC_HEADERS, 'x-api-key': key })).status).toBe(200);
    expect(receivedSince(r, before)['x-api-key']).toBe(key);
    before = r.model.requests.length;
    expect((await rawPost(r.proxy.url, '/v1/chat/completions', chatRequest(), { authorization: `Bearer ${REAL_OPENAI}` })).status).toBe(200);
    expect(receivedSince(r, before).authorization).toBe(`Bearer ${REAL_OPENAI}`);
    expect(r.log.lines.join('')).toContain('stand_ins=none');
    await expectNoneWritten(r, [key, REAL_OPENAI]);
  });

  it('for the provider that has none, while the other one is swapped', async () => {
    const r = await rigWith({ anthropic: SWAPS.anthropic! });
    let before = r.model.requests.length;
    expect((await rawPost(r.proxy.url, '/v1/chat/completions', chatRequest(), { authorization: 'Bearer sk-whatever-the-agent-has' })).status).toBe(200);
    expect(receivedSince(r, before).authorization).toBe('Bearer sk-whatever-the-agent-has');
    before = r.model.requests.length;
    expect((await rawPost(r.proxy.url, '/v1/messages', anthropicRequest(), { ...ANTHROPIC_HEADERS, 'x-api-key': STAND_IN_ANTHROPIC })).status).toBe(200);
    expect(receivedSince(r, before)['x-api-key']).toBe(REAL_ANTHROPIC);
    expect((await rawPost(r.proxy.url, '/v1/messages', anthropicRequest(), { ...ANTHROPIC_HEADERS, 'x-api-key': 'sk-ant-other' })).status).toBe(401);
    expect(r.log.lines.join('')).toContain('stand_ins=anthropic');
  });
});

describe('keySwapsFromEnv: what the proxy process is given', () => {
  it('pairs each stand-in with the real key under the same name; none set, none swapped', () => {
    expect(keySwapsFromEnv({ ANTHROPIC_API_KEY: REAL_ANTHROPIC, OPENAI_API_KEY: REAL_OPENAI })).toEqual({});
    expect(
      keySwapsFromEnv({ ANTHROPIC_API_KEY: `${REAL_ANTHROPIC}\n`, INTUTIC_STAND_IN_ANTHROPIC_API_KEY: STAND_IN_ANTHROPIC, OPENAI_API_KEY: REAL_OPENAI }),
    ).toEqual({
      anthropic: { standIn: STAND_IN_ANTHROPIC, real: REAL_ANTHROPIC },
    });
  });

  it('refuses a stand-in with no real key behind it, or one that is the real key, without showing a value', () => {
    expect(() => keySwapsFromEnv({ INTUTIC_STAND_IN_OPENAI_API_KEY: STAND_IN_OPENAI })).toThrow(
      /INTUTIC_STAND_IN_OPENAI_API_KEY is set but OPENAI_API_KEY is not/,
    );
    let error: unknown;
    try {
      keySwapsFromEnv({ ANTHROPIC_API_KEY: REAL_ANTHROPIC, INTUTIC_STAND_IN_ANTHROPIC_API_KEY: REAL_ANTHROPIC });
    } catch (e) {
      error = e;
    }
    expect(isIntuticError(error) && error.code).toBe('E_USAGE');
    expect(String((error as Error).message)).not.toContain(REAL_ANTHROPIC);
  });
});
