// Mutating faults never apply outside a sandbox: `intutic start --plan` by hand (no repetition named)
// leaves llm.context_trim and llm.model_degrade out, says so in its log and as a warning event, and
// still injects the fail-safe llm.rate_limit; the runner's proxy for this plan's run applies them all.
import { afterEach, describe, expect, it } from 'vitest';
import { REPETITION_ENV } from '@intutic/faults';
import { anthropicRequest, planWith, rawPost, startRig, type Rig } from './llm-fixtures.ts';

const script = { side_requests: 'never' as const, turns: [{ text: 'ok' }], after_last: 'repeat_last' as const };
const plan = planWith([
  { id: 'llm.model_degrade', options: { to_model: 'claude-haiku-4-5' } },
  { id: 'llm.rate_limit', after_calls: 1, times: 1, options: { retry_after_s: 1 } },
]);

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('where the proxy applies mutating faults', () => {
  it('on the host: the mutating fault is said and not injected, the fail-safe one still is', async () => {
    rig = await startRig(script, { plan, placement: undefined, env: {} });
    expect(rig.proxy.refusedFaults.map((f) => f.id)).toEqual(['llm.model_degrade']);
    expect(rig.log.lines.join('\n')).toMatch(/mutating fault\(s\) 0:llm\.model_degrade not applied: not started by the runner for a repetition/);
    const first = await rawPost(rig.proxy.url, '/v1/messages', anthropicRequest({ model: 'claude-sonnet-4-5' }));
    expect(first.status).toBe(200);
    expect((rig.model.requests[0]!.body as { model: string }).model).toBe('claude-sonnet-4-5');
    expect((await rawPost(rig.proxy.url, '/v1/messages', anthropicRequest({ model: 'claude-sonnet-4-5' }))).status).toBe(429);
    const events = await rig.events();
    expect(events.filter((e) => e.type === 'warning')).toMatchObject([{ source: 'proxy', code: 'mutating_fault_refused', faults: [0] }]);
    expect((await rig.injections()).map((e) => e.fault_id)).toEqual(['llm.rate_limit']);
  });

  it('another run named is the host too', async () => {
    rig = await startRig(script, { plan, placement: undefined, env: { [REPETITION_ENV]: 'some-other-run' } });
    expect(rig.proxy.refusedFaults.map((f) => f.id)).toEqual(['llm.model_degrade']);
  });

  it("started by the runner for this plan's repetition: the mutating fault is injected", async () => {
    rig = await startRig(script, { plan, placement: undefined, env: { [REPETITION_ENV]: plan.run_id } });
    expect(rig.proxy.refusedFaults).toEqual([]);
    await rawPost(rig.proxy.url, '/v1/messages', anthropicRequest({ model: 'claude-sonnet-4-5' }));
    expect((rig.model.requests[0]!.body as { model: string }).model).toBe('claude-haiku-4-5');
    expect((await rig.events()).some((e) => e.type === 'warning')).toBe(false);
  });
});
