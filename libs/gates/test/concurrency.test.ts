// Many gate processes at once against one repetition's state: counters, holds and plan_loaded stay
// exact under the file lock, and every line in the events file is whole.
import { beforeAll, describe, expect, it } from 'vitest';
import { chaosEventSchema } from '@intutic/events';
import { buildGates, installGates, planOf, runGate, tempProject, type HookRun } from './helpers.ts';

let dist: string;
beforeAll(async () => {
  dist = await buildGates();
});

const pre = (command: string, id: string) => ({
  hook_event_name: 'PreToolUse',
  tool_name: 'Bash',
  tool_input: { command },
  tool_use_id: id,
  cwd: '/tmp',
  session_id: 's',
});
const reason = (r: HookRun) => String((r.json?.hookSpecificOutput as Record<string, unknown> | undefined)?.permissionDecisionReason ?? '');

describe('concurrent hook processes', () => {
  it('times: 5 injects exactly 5 tool errors among 24 concurrent calls, and plan_loaded once', async () => {
    const p = tempProject();
    const gates = installGates(dist, p.dir);
    p.writePlan(planOf([{ id: 'tool.error', match: { tool: 'Bash' }, after_calls: 3, times: 5, options: { message: 'flaky' } }]));
    const runs = await Promise.all(Array.from({ length: 24 }, (_, i) => runGate(gates.claude, pre(`echo ${i}`, `c${i}`), p.env)));
    expect(runs.every((r) => r.code === 0)).toBe(true);
    expect(runs.filter((r) => reason(r).includes('tool error: flaky')).length).toBe(5);
    const events = p.readEvents();
    for (const e of events) expect(chaosEventSchema.safeParse(e).success).toBe(true);
    expect(events.filter((e) => e.type === 'plan_loaded')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'gate_decision')).toHaveLength(24);
    const injected = events.filter((e) => e.type === 'fault_injected');
    expect(injected).toHaveLength(5);
    const failedIds = new Set(events.filter((e) => e.type === 'tool_call' && e.ok === false).map((e) => e.call_id));
    for (const f of injected) expect(failedIds.has(f.call_id)).toBe(true);
  });

  it('concurrent identical calls make one hold: one injection, every attempt held', async () => {
    const p = tempProject();
    const gates = installGates(dist, p.dir);
    p.writePlan(planOf([{ id: 'permission.deny_or_delay', options: { mode: 'delay', delay_s: 600 } }]));
    const runs = await Promise.all(Array.from({ length: 12 }, (_, i) => runGate(gates.claude, pre('npm publish', `h${i}`), p.env)));
    expect(runs.every((r) => reason(r).startsWith('[Intutic Governance] HELD:') && reason(r).includes('E-INTUTIC-0badcafe'))).toBe(true);
    const injected = p.readEvents().filter((e) => e.type === 'fault_injected');
    expect(injected).toHaveLength(1);
    expect(injected[0]!.hold_id).toBe('run-1:hold-1');
  });
});
