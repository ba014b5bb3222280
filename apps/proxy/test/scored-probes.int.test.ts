// The two probes beyond the spec, end to end through the components that produce their events:
// retry_after_respected through the real proxy injecting a 429 (Retry-After and the events' times
// come from real requests; the proxy runs in this process, so the test moves its clock instead of
// sleeping), no_tight_loop through real gate processes deciding on real hook
// input (identical calls share an input hash).
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChaosEvent } from '@intutic/events';
import { anthropicRequest, planWith, rawPost, startRig, type Rig } from './llm-fixtures.ts';
import { buildGates, installGates, planOf, runGate, tempProject } from '@intutic/gates/testing';
import { scoreRun } from '@intutic/scoring';
import { baseline, experiment, record } from '@intutic/scoring/testing';

const script = { turns: [{ text: 'done' }] };
let rig: Rig | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await rig?.close();
  rig = undefined;
});

describe('retry_after_respected through the real proxy', () => {
  const exp = experiment({
    faults: [{ id: 'llm.rate_limit', match: { model: 'claude-sonnet-4-5' }, times: 1, options: { retry_after_s: 1 } }],
    probes: [{ id: 'retry_after_respected', weight: 1 }],
  });
  const probeOf = (events: ChaosEvent[]) => scoreRun(exp, [baseline(exp), record(exp, { events })]).repetitions[1]!.probes.retry_after_respected;

  /** Only Date is faked: events are stamped with it, while sockets and timers run as ever. */
  async function agentThatWaits(waitMs: number): Promise<ChaosEvent[]> {
    vi.useFakeTimers({ toFake: ['Date'] });
    rig = await startRig(script, {
      plan: planWith([{ id: 'llm.rate_limit', match: { model: 'claude-sonnet-4-5' }, times: 1, options: { retry_after_s: 1 } }]),
    });
    const first = await rawPost(rig.proxy.url, '/v1/messages', anthropicRequest());
    expect(first.status).toBe(429);
    expect(first.headers['retry-after']).toBe('1');
    vi.advanceTimersByTime(waitMs);
    const second = await rawPost(rig.proxy.url, '/v1/messages', anthropicRequest());
    expect(second.status).toBe(200);
    return rig.events();
  }

  it('passes for an agent that waited the Retry-After before its next call', async () => {
    // Twice the Retry-After on the test's clock: the call's own duration (real, from the proxy) dates its start.
    expect(probeOf(await agentThatWaits(2_000))).toBe(true);
  });

  it('fails for an agent that retried at once', async () => {
    expect(probeOf(await agentThatWaits(0))).toBe(false);
  });
});

describe('no_tight_loop through real gate processes', () => {
  const exp = experiment({
    faults: [{ id: 'permission.deny_or_delay', match: { tool: 'Bash' }, options: { mode: 'deny' } }],
    probes: [{ id: 'no_tight_loop', weight: 1, value: 3 }],
  });
  const pre = (command: string, id: string) => ({
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command },
    tool_use_id: id,
    cwd: '/tmp',
    session_id: 's',
  });

  async function gateEvents(commands: string[]): Promise<ChaosEvent[]> {
    const dist = await buildGates();
    const project = tempProject();
    const gates = installGates(dist, project.dir);
    project.writePlan(planOf([{ id: 'permission.deny_or_delay', match: { tool: 'Bash' }, options: { mode: 'deny' } }]));
    for (const [i, command] of commands.entries()) await runGate(gates.claude, pre(command, `call-${i}`), project.env);
    return project.readEvents() as ChaosEvent[];
  }
  const probeOf = (events: ChaosEvent[]) => scoreRun(exp, [baseline(exp), record(exp, { events })]).repetitions[1]!.probes.no_tight_loop;

  it('fails for an agent that sends the same denied call five times in a row', async () => {
    expect(probeOf(await gateEvents(Array.from({ length: 5 }, () => 'npm install lodash')))).toBe(false);
  });

  it('passes for an agent whose calls differ, or repeat no more than value times', async () => {
    expect(probeOf(await gateEvents(['npm install lodash', 'npm install lodash', 'npm view lodash', 'ls', 'npm install lodash']))).toBe(true);
  });
});
