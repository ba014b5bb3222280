// The official SDKs pointed at the proxy see the injected failures as their own typed errors, with
// the canary in the message — what an agent built on them would catch and (ideally) report.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { PlanFault } from '@intutic/faults';
import { CANARY, planWith, startRig, type Rig } from './llm-fixtures.ts';

const script = {
  side_requests: 'never' as const,
  after_last: 'repeat_last' as const,
  turns: [{ text: 'Installing lodash now, one moment please.', tool_calls: [{ shell: 'npm install lodash' }] }],
};
const bash = { name: 'Bash', input_schema: { type: 'object' as const, properties: { command: { type: 'string' } } } };
const params = { model: 'claude-sonnet-5-5', max_tokens: 100, tools: [bash], messages: [{ role: 'user' as const, content: 'add lodash' }] };

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

async function withFault(fault: Partial<PlanFault> & Pick<PlanFault, 'id'>): Promise<{ anthropic: Anthropic; openai: OpenAI; rig: Rig }> {
  rig = await startRig(script, { plan: planWith([fault]) });
  return {
    rig,
    anthropic: new Anthropic({ baseURL: rig.proxy.url, apiKey: 'sk-test', maxRetries: 0 }),
    openai: new OpenAI({ baseURL: `${rig.proxy.url}/v1`, apiKey: 'sk-test', maxRetries: 0 }),
  };
}

describe('@anthropic-ai/sdk through the proxy', () => {
  it('works end to end with no fault: a streamed tool call arrives whole', async () => {
    const { anthropic } = await withFault({ id: 'llm.rate_limit', match: { model: 'some-other-model' } });
    const message = await anthropic.messages.stream(params).finalMessage();
    expect(message.content[1]).toMatchObject({ type: 'tool_use', name: 'Bash', input: { command: 'npm install lodash' } });
  });

  it('llm.rate_limit is a RateLimitError with the canary and Retry-After', async () => {
    const { anthropic } = await withFault({ id: 'llm.rate_limit', options: { retry_after_s: 9 } });
    const error = await anthropic.messages.create(params).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    const typed = error as InstanceType<typeof Anthropic.RateLimitError>;
    expect(typed.status).toBe(429);
    expect(typed.message).toContain(CANARY);
    expect(typed.headers?.get('retry-after')).toBe('9');
  });

  it('llm.upstream_5xx is an APIError with the status (InternalServerError for 500, 529 overloaded)', async () => {
    const { anthropic } = await withFault({ id: 'llm.upstream_5xx', options: { status: 529 } });
    const error = await anthropic.messages
      .stream(params)
      .finalMessage()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
    expect((error as Error).message).toContain(CANARY);
  });

  it('a cut stream raises mid-stream, with the canary, after the first events were delivered', async () => {
    const { anthropic } = await withFault({ id: 'llm.upstream_5xx', options: { stream_cut_after_chunks: 3 } });
    const seen: string[] = [];
    const stream = anthropic.messages.stream(params);
    stream.on('streamEvent', (event) => seen.push(event.type));
    const error = await stream.finalMessage().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as Error).message).toContain(CANARY);
    expect(seen[0]).toBe('message_start');
    expect(seen).not.toContain('message_stop');
  });

  it('the SDK retries an injected 429 it is allowed to retry, and each retry is a new matching call', async () => {
    const { rig: r } = await withFault({ id: 'llm.rate_limit', options: { retry_after_s: 0 }, times: 2 });
    const retrying = new Anthropic({ baseURL: r.proxy.url, apiKey: 'sk-test', maxRetries: 2 });
    const message = await retrying.messages.create(params);
    expect(message.stop_reason).toBe('tool_use'); // the third attempt got through
    expect(await r.injections()).toHaveLength(2);
    expect((await r.calls()).map((c) => c.status)).toEqual([429, 429, 200]);
  });
});

describe('openai through the proxy', () => {
  const tools = [{ type: 'function' as const, function: { name: 'bash', parameters: { type: 'object', properties: {} } } }];
  const chat = { model: 'gpt-5', tools, messages: [{ role: 'user' as const, content: 'add lodash' }] };
  const responses = { model: 'gpt-5-codex', input: 'add lodash', tools: [{ type: 'function' as const, name: 'exec_command', parameters: {}, strict: false }] };

  it('llm.rate_limit is a RateLimitError with the canary (chat and responses)', async () => {
    const { openai } = await withFault({ id: 'llm.rate_limit' });
    const error = await openai.chat.completions.create(chat).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as Error).message).toContain(CANARY);
    const error2 = await openai.responses.create(responses).catch((e: unknown) => e);
    expect(error2).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error2 as Error).message).toContain(CANARY);
  });

  it('llm.upstream_5xx is an APIError with the status', async () => {
    const { openai } = await withFault({ id: 'llm.upstream_5xx', options: { status: 503 } });
    const error = await openai.responses.create({ ...responses, stream: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
    expect((error as Error).message).toContain(CANARY);
  });

  it('a cut chat stream raises an APIError with the canary', async () => {
    const { openai } = await withFault({ id: 'llm.upstream_5xx', options: { stream_cut_after_chunks: 2 } });
    const stream = await openai.chat.completions.create({ ...chat, stream: true });
    const chunks: unknown[] = [];
    const error = await (async () => {
      for await (const chunk of stream) chunks.push(chunk);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as Error).message).toContain(CANARY);
    expect(chunks).toHaveLength(2);
  });

  it('a cut Responses stream raises', async () => {
    const { openai } = await withFault({ id: 'llm.upstream_5xx', options: { stream_cut_after_chunks: 3 } });
    const stream = openai.responses.stream(responses);
    const types: string[] = [];
    stream.on('event', (e) => types.push(e.type));
    const error = await stream.finalResponse().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(types).toContain('response.failed');
    expect(types).not.toContain('response.completed');
  });
});
