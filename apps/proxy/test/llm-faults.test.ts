// The llm.* faults through the real proxy and a scripted upstream: each fires exactly on the calls
// after_calls/times name, answers in the provider's own format with the canary, appends
// fault_injected, and the failing ones never reach the upstream (the proxy does not retry them).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PlanFault } from '@intutic/faults';
import { parseSseEvent, SseSplitter } from '../src/llm/sse.ts';
import { anthropicRequest, CANARY, chatRequest, planWith, rawPost, responsesRequest, startRig, type Rig } from './llm-fixtures.ts';
import { scratchDir } from '@intutic/testkit';

const toolScript = {
  side_requests: 'never' as const,
  turns: [{ text: 'Installing lodash now, one moment please.', tool_calls: [{ shell: 'npm install lodash' }] }],
  after_last: 'repeat_last' as const,
};

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

function sseEvents(body: Buffer): string[] {
  return new SseSplitter().push(body).map((e) => e.toString('utf8'));
}

describe('after_calls and times', () => {
  const shapes: Array<[after: number, times: number | null]> = [
    [0, 1],
    [1, 2],
    [2, null],
    [0, null],
  ];
  for (const [after, times] of shapes) {
    it(`llm.rate_limit with after_calls ${after}, times ${times ?? 'absent'} fails exactly those calls`, async () => {
      rig = await startRig(toolScript, {
        plan: planWith([{ id: 'llm.rate_limit', match: { model: 'claude-sonnet-4-5' }, after_calls: after, times, options: { retry_after_s: 7 } }]),
      });
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await rawPost(rig.proxy.url, '/v1/messages?beta=true', anthropicRequest({ stream: true }))).status);
      const expected = [0, 1, 2, 3, 4, 5].map((i) => (i >= after && (times === null || i < after + times) ? 429 : 200));
      expect(statuses).toEqual(expected);
      const injected = await rig.injections();
      expect(injected).toHaveLength(expected.filter((s) => s === 429).length);
      for (const e of injected)
        expect(e).toMatchObject({
          source: 'proxy',
          fault_index: 0,
          fault_id: 'llm.rate_limit',
          target: 'claude-sonnet-4-5',
          retry_after_s: 7,
          run_id: 'run-proxy-test',
        });
      // The proxy does not retry its own injections, and the upstream never sees them.
      expect(rig.model.requests).toHaveLength(expected.filter((s) => s === 200).length);
      expect((await rig.calls()).map((c) => c.status)).toEqual(expected);
    });
  }

  it('counts only calls whose model matches; other models pass and are not counted', async () => {
    rig = await startRig(toolScript, { plan: planWith([{ id: 'llm.upstream_5xx', match: { model: '*-haiku-4-5' }, after_calls: 1, times: 1 }]) });
    const run = async (model: string): Promise<number> => (await rawPost(rig!.proxy.url, '/v1/messages', anthropicRequest({ model }))).status;
    expect([
      await run('claude-sonnet-4-5'),
      await run('claude-haiku-4-5'),
      await run('claude-sonnet-4-5'),
      await run('claude-haiku-4-5'),
      await run('claude-haiku-4-5'),
    ]).toEqual([200, 200, 200, 500, 200]);
  });
});

describe('llm.rate_limit', () => {
  it("answers 429 in Anthropic's format with retry-after and the canary", async () => {
    rig = await startRig(toolScript, { plan: planWith([{ id: 'llm.rate_limit' }]) });
    const res = await rawPost(rig.proxy.url, '/v1/messages', anthropicRequest());
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('5'); // the catalog's default
    const body = JSON.parse(res.body.toString());
    expect(body).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    expect(body.error.message).toContain(CANARY);
  });

  it("answers 429 in OpenAI's format for chat and responses", async () => {
    rig = await startRig(toolScript, { plan: planWith([{ id: 'llm.rate_limit', options: { retry_after_s: 3 } }]) });
    for (const [path, body] of [
      ['/v1/chat/completions', chatRequest()],
      ['/v1/responses', responsesRequest({ stream: true })],
    ] as const) {
      const res = await rawPost(rig.proxy.url, path, body);
      expect(res.status).toBe(429);
      expect(res.headers['retry-after']).toBe('3');
      expect(JSON.parse(res.body.toString())).toMatchObject({
        error: { type: 'requests', code: 'rate_limit_exceeded', message: expect.stringContaining(CANARY) },
      });
    }
  });
});

describe('llm.upstream_5xx', () => {
  it('answers the planned status in the provider format, once retries would be spent', async () => {
    rig = await startRig(toolScript, { plan: planWith([{ id: 'llm.upstream_5xx', options: { status: 529 }, times: 1 }]), upstreamRetries: 2 });
    const failed = await rawPost(rig.proxy.url, '/v1/messages', anthropicRequest());
    expect(failed.status).toBe(529);
    expect(JSON.parse(failed.body.toString())).toMatchObject({ type: 'error', error: { type: 'overloaded_error', message: expect.stringContaining(CANARY) } });
    expect(rig.model.requests).toHaveLength(0);
    expect((await rawPost(rig.proxy.url, '/v1/messages', anthropicRequest())).status).toBe(200);
    const chat = await startRig(toolScript, { plan: planWith([{ id: 'llm.upstream_5xx', options: { status: 503 } }]) });
    try {
      const res = await rawPost(chat.proxy.url, '/v1/chat/completions', chatRequest());
      expect(res.status).toBe(503);
      expect(JSON.parse(res.body.toString())).toMatchObject({ error: { type: 'server_error', message: expect.stringContaining(CANARY) } });
    } finally {
      await chat.close();
    }
  });

  it('cuts an Anthropic stream after N events: those N as sent, an error event with the canary, then the connection drops', async () => {
    rig = await startRig(toolScript, { plan: planWith([{ id: 'llm.upstream_5xx', options: { stream_cut_after_chunks: 4 }, times: 1 }]) });
    const direct = sseEvents((await rawPost(rig.model.url, '/v1/messages', anthropicRequest({ stream: true }))).body);
    const cut = await rawPost(rig.proxy.url, '/v1/messages', anthropicRequest({ stream: true }));
    expect(cut.status).toBe(200);
    expect(cut.aborted).toBe(true);
    const events = sseEvents(cut.body);
    expect(events.slice(0, 4)).toEqual(direct.slice(0, 4));
    expect(events).toHaveLength(5);
    expect(parseSseEvent(events[4]!)).toMatchObject({ event: 'error' });
    expect(JSON.parse(parseSseEvent(events[4]!).data)).toMatchObject({ type: 'error', error: { type: 'api_error', message: expect.stringContaining(CANARY) } });
    const [injection] = await rig.injections();
    expect(injection).toMatchObject({ fault_id: 'llm.upstream_5xx', target: 'claude-sonnet-4-5', detail: expect.stringContaining('after 4 event') });
    // The rest of the upstream stream is still read: the call is charged in full.
    const [call] = await rig.calls();
    expect(call!.output_tokens).toBeGreaterThan(1);
    // The next call is whole again.
    const whole = await rawPost(rig.proxy.url, '/v1/messages', anthropicRequest({ stream: true }));
    expect(whole.aborted).toBe(false);
    expect(sseEvents(whole.body)).toEqual(direct);
  });

  it('still cuts a stream shorter than N, before its last event', async () => {
    rig = await startRig(toolScript, { plan: planWith([{ id: 'llm.upstream_5xx', options: { stream_cut_after_chunks: 10_000 } }]) });
    const direct = sseEvents((await rawPost(rig.model.url, '/v1/chat/completions', chatRequest({ stream: true }))).body);
    const cut = await rawPost(rig.proxy.url, '/v1/chat/completions', chatRequest({ stream: true }));
    const events = sseEvents(cut.body);
    expect(cut.aborted).toBe(true);
    expect(events.slice(0, -1)).toEqual(direct.slice(0, direct.length - 1));
    expect(JSON.parse(parseSseEvent(events.at(-1)!).data)).toMatchObject({ error: { type: 'server_error', message: expect.stringContaining(CANARY) } });
  });

  it('cuts a Responses stream with response.failed, and fails a non-streaming call with the status instead', async () => {
    rig = await startRig(toolScript, { plan: planWith([{ id: 'llm.upstream_5xx', options: { status: 502, stream_cut_after_chunks: 2 } }]) });
    const cut = await rawPost(rig.proxy.url, '/v1/responses', responsesRequest({ stream: true }));
    const events = sseEvents(cut.body);
    expect(events).toHaveLength(3);
    expect(parseSseEvent(events[2]!).event).toBe('response.failed');
    expect(events[2]).toContain(CANARY);
    const plain = await rawPost(rig.proxy.url, '/v1/responses', responsesRequest());
    expect(plain.status).toBe(502);
    expect(plain.body.toString()).toContain(CANARY);
  });
});

describe('mutating faults', () => {
  const conversation = (): Record<string, unknown>[] => [
    { role: 'user', content: 'add lodash' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'package.json' }] },
    { role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'Bash', input: { command: 'npm install lodash' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: 'added 1 package' }] },
  ];

  it('llm.context_trim drops the oldest messages and the system prompt, and the provider still accepts the request', async () => {
    rig = await startRig(toolScript, { plan: planWith([{ id: 'llm.context_trim', options: { drop_oldest: 2, drop_system: true }, times: 1 }]) });
    const res = await rawPost(rig.proxy.url, '/v1/messages', anthropicRequest({ system: 'You are careful.', messages: conversation() }));
    expect(res.status).toBe(200); // the scripted upstream rejects ill-formed histories with 400, as the API does
    const sent = rig.model.requests[0]!.body as { system?: string; messages: Array<{ role: string; content: unknown }> };
    expect(sent.system).toBeUndefined();
    expect(sent.messages).toHaveLength(3);
    expect(sent.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'Tool result: package.json' }] });
    expect(sent.messages.at(-1)).toEqual(conversation().at(-1));
    const [injection] = await rig.injections();
    expect(injection).toMatchObject({ fault_id: 'llm.context_trim', detail: 'dropped 2 oldest message(s) and the system prompt' });
    // times: 1 — the next request goes through whole.
    await rawPost(rig.proxy.url, '/v1/messages', anthropicRequest({ system: 'You are careful.', messages: conversation() }));
    expect((rig.model.requests[1]!.body as { messages: unknown[] }).messages).toHaveLength(5);
  });

  it('llm.context_trim keeps OpenAI chat and Responses histories well-formed', async () => {
    rig = await startRig(toolScript, { plan: planWith([{ id: 'llm.context_trim', options: { drop_oldest: 2, drop_system: true } }]) });
    const chat = await rawPost(
      rig.proxy.url,
      '/v1/chat/completions',
      chatRequest({
        messages: [
          { role: 'system', content: 'be careful' },
          { role: 'user', content: 'add lodash' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'bash', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'c1', content: 'ok' },
          { role: 'user', content: 'now test' },
        ],
      }),
    );
    expect(chat.status).toBe(200);
    expect((rig.model.requests[0]!.body as { messages: unknown[] }).messages).toEqual([
      { role: 'user', content: 'Tool result: ok' },
      { role: 'user', content: 'now test' },
    ]);
    const responses = await rawPost(
      rig.proxy.url,
      '/v1/responses',
      responsesRequest({
        instructions: 'be careful',
        input: [
          { role: 'user', content: 'add lodash' },
          { type: 'function_call', call_id: 'c1', name: 'exec_command', arguments: '{}' },
          { type: 'function_call_output', call_id: 'c1', output: 'ok' },
          { type: 'function_call', call_id: 'c2', name: 'exec_command', arguments: '{}' },
          { type: 'function_call_output', call_id: 'c2', output: 'done' },
        ],
      }),
    );
    expect(responses.status).toBe(200);
    const sent = rig.model.requests[1]!.body as { instructions?: string; input: unknown[] };
    expect(sent.instructions).toBeUndefined();
    expect(sent.input).toEqual([
      { role: 'user', content: [{ type: 'input_text', text: 'Tool result: ok' }] },
      { type: 'function_call', call_id: 'c2', name: 'exec_command', arguments: '{}' },
      { type: 'function_call_output', call_id: 'c2', output: 'done' },
    ]);
  });

  it('llm.model_degrade has another model serve the call, and it is charged as that model', async () => {
    rig = await startRig(
      { ...toolScript, turns: [{ text: 'hi', usage: { input_tokens: 1000, output_tokens: 1000 } }] },
      {
        plan: planWith([{ id: 'llm.model_degrade', match: { model: 'claude-sonnet-4-5' }, options: { to_model: 'claude-haiku-4-5' } }]),
      },
    );
    const res = await rawPost(rig.proxy.url, '/v1/messages', anthropicRequest());
    expect(JSON.parse(res.body.toString()).model).toBe('claude-haiku-4-5');
    expect((rig.model.requests[0]!.body as { model: string }).model).toBe('claude-haiku-4-5');
    const [call] = await rig.calls();
    expect(call).toMatchObject({ model: 'claude-haiku-4-5' });
    expect(call!.cost_usd).toBeCloseTo((1000 * 1 + 1000 * 5) / 1e6, 9);
    expect(await rig.injections()).toMatchObject([
      { fault_id: 'llm.model_degrade', target: 'claude-sonnet-4-5', detail: 'served by claude-haiku-4-5 instead' },
    ]);
  });
});

describe('plan_loaded and governance', () => {
  it('reports plan_loaded with the indexes of the llm.* and egress.* faults only', async () => {
    const faults: Array<Partial<PlanFault> & Pick<PlanFault, 'id'>> = [
      { id: 'tool.error', match: { tool: 'Bash' } },
      { id: 'llm.rate_limit' },
      { id: 'egress.dns_fail', match: { host: 'registry.test' } },
    ];
    rig = await startRig(toolScript, { plan: planWith(faults) });
    const [loaded] = (await rig.events()).filter((e) => e.type === 'plan_loaded');
    expect(loaded).toMatchObject({ source: 'proxy', faults: [1, 2], run_id: 'run-proxy-test' });
  });

  it('a fault never loosens governance: a blocked upstream stays blocked and the fault is not spent', async () => {
    const dir = scratchDir('intutic-proxy-policy-');
    const snapshot = join(dir, 'snapshot-rules.json');
    const rule = { id: 'no-local-models', subject: 'host', pattern: '127.0.0.1', action: 'block', mode: 'enforce', reason: 'local models are not allowed' };
    writeFileSync(snapshot, JSON.stringify({ version: 1, rules: [rule] }));
    rig = await startRig(toolScript, {
      plan: planWith([{ id: 'llm.rate_limit', times: 1 }]),
      policy: undefined,
      env: { HOME: dir, INTUTIC_SNAPSHOT_RULES: snapshot, INTUTIC_APPROVED_BYPASSES: join(dir, 'none.json') },
    });
    const res = await rawPost(rig.proxy.url, '/v1/messages', anthropicRequest());
    expect(res.status).toBe(403);
    expect(res.body.toString()).toContain('no-local-models');
    expect(res.body.toString()).not.toContain(CANARY);
    expect(await rig.injections()).toHaveLength(0);
    expect(rig.model.requests).toHaveLength(0);
    // The rule that fired is in the events, as a gate's would be: no_policy_hits counts it.
    expect((await rig.events()).filter((e) => e.type === 'gate_decision')).toEqual([
      expect.objectContaining({
        source: 'proxy',
        run_id: 'run-proxy-test',
        tool: '127.0.0.1',
        harness: 'llm',
        decision: 'block',
        rule: 'no-local-models',
        mode: 'enforce',
        destructive: false,
      }),
    ]);
  });
});
