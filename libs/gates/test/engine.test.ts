import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chaosEventSchema } from '@intutic/events';
import { ENV } from '@intutic/faults';
import { checkCall, ENV_NAMES, openGate, recordOutcome, type Gate } from '../src/index.ts';
import { CANARY, planOf, tempProject, type TempProject } from './helpers.ts';

function gateFor(p: TempProject, clock = { t: 1_000_000 }, harness = 'claude-code'): Gate {
  return openGate({ source: 'gate', harness, env: p.env, projectDir: p.dir, logDir: join(p.dir, '.intutic', 'events'), now: () => clock.t });
}
const bash = (command: string, callId?: string) => ({ tool: 'Bash', input: { command }, ...(callId ? { callId } : {}), cwd: '/work/proj' });
const types = (events: Record<string, unknown>[]) => events.map((e) => e.type);

describe('gate engine', () => {
  it('uses the environment variable names the runner sets', () => {
    expect(ENV_NAMES).toEqual({ plan: ENV.plan, events: ENV.events });
  });

  it('without a plan: decides, records gate_decision, keeps no state', () => {
    const p = tempProject();
    const gate = gateFor(p);
    expect(checkCall(gate, bash('ls', 'c1')).outcome).toBe('allow');
    expect(checkCall(gate, bash('git reset --hard', 'c2'))).toMatchObject({ outcome: 'refuse', code: 'BLOCKED' });
    const events = p.readEvents();
    expect(types(events)).toEqual(['gate_decision', 'gate_decision', 'tool_call']);
    expect(events[1]).toMatchObject({ decision: 'block', rule: 'destructive.git_reset_hard', destructive: true, call_id: 'c2' });
    expect(events[2]).toMatchObject({ tool: 'Bash', ok: false, call_id: 'c2' });
    expect(existsSync(`${p.events}.gates-state.json`)).toBe(false);
    expect(p.readEvents(join(p.dir, '.intutic/events/gates.jsonl'))).toEqual(events);
  });

  it('without INTUTIC_CHAOS_EVENTS and without a plan, only the gate log is written', () => {
    const p = tempProject();
    delete p.env.INTUTIC_CHAOS_EVENTS;
    checkCall(gateFor(p), bash('ls'));
    expect(existsSync(join(p.dir, '.intutic-chaos'))).toBe(false);
    expect(p.readEvents(join(p.dir, '.intutic/events/gates.jsonl'))).toHaveLength(1);
  });

  it('with a plan and no INTUTIC_CHAOS_EVENTS, events go to <project>/.intutic-chaos/events.jsonl', () => {
    const p = tempProject();
    delete p.env.INTUTIC_CHAOS_EVENTS;
    p.writePlan(planOf([]));
    checkCall(gateFor(p), bash('ls'));
    expect(types(p.readEvents(join(p.dir, '.intutic-chaos/events.jsonl')))).toEqual(['plan_loaded', 'gate_decision']);
  });

  it('reports plan_loaded once per repetition across separate gate processes, listing the faults gates inject', () => {
    const p = tempProject();
    p.writePlan(planOf([{ id: 'llm.rate_limit' }, { id: 'tool.error', match: { tool: 'Nope' } }, { id: 'permission.deny_or_delay', match: { tool: 'Nope' } }]));
    for (let i = 0; i < 3; i++) checkCall(gateFor(p), bash('ls'));
    checkCall(gateFor(p, undefined, 'codex'), bash('ls'));
    const loaded = p.readEvents().filter((e) => e.type === 'plan_loaded');
    expect(loaded).toEqual([
      expect.objectContaining({ source: 'gate', faults: [1, 2], detail: 'claude-code', run_id: 'run-1' }),
      expect.objectContaining({ source: 'gate', faults: [1, 2], detail: 'codex' }),
    ]);
  });

  it('tool.error: the call fails with the message and the canary; fault and failed call share the call id', () => {
    const p = tempProject();
    p.writePlan(planOf([{ id: 'tool.error', match: { tool: 'Bash' }, times: 1, options: { message: 'disk quota exceeded' } }]));
    const v = checkCall(gateFor(p), bash('npm install', 'tu_1'));
    expect(v).toMatchObject({ outcome: 'refuse', code: 'CHAOS_FAULT' });
    expect(v.outcome === 'refuse' && v.message).toBe(`[Intutic Chaos] tool error: disk quota exceeded [${CANARY}]`);
    const events = p.readEvents();
    expect(types(events)).toEqual(['plan_loaded', 'gate_decision', 'fault_injected', 'tool_call']);
    expect(events[1]).toMatchObject({ decision: 'allow', rule: null });
    expect(events[2]).toMatchObject({ fault_index: 0, fault_id: 'tool.error', target: 'Bash', call_id: 'tu_1' });
    expect(events[3]).toMatchObject({ ok: false, call_id: 'tu_1' });
    expect(checkCall(gateFor(p), bash('npm install', 'tu_2')).outcome).toBe('allow');
  });

  it('a delay hold: HELD with the canary, retries held, released after delay_s, one fault_injected', () => {
    const p = tempProject();
    const clock = { t: 5_000 };
    p.writePlan(planOf([{ id: 'permission.deny_or_delay', match: { tool: 'Bash' }, times: 1, options: { mode: 'delay', delay_s: 30 } }]));
    const first = checkCall(gateFor(p, clock), bash('make deploy', 'a1'));
    expect(first).toMatchObject({ outcome: 'refuse', code: 'HELD' });
    expect(first.outcome === 'refuse' && first.message).toMatch(new RegExp(`^\\[Intutic Governance\\] HELD: .*\\[${CANARY}\\]$`));
    clock.t += 29_000;
    expect(checkCall(gateFor(p, clock), bash('make deploy', 'a2'))).toMatchObject({ outcome: 'refuse', code: 'HELD' });
    expect(checkCall(gateFor(p, clock), bash('make test', 'b1')).outcome).toBe('allow'); // a different call
    clock.t += 1_000;
    expect(checkCall(gateFor(p, clock), bash('make deploy', 'a3')).outcome).toBe('allow');
    const injected = p.readEvents().filter((e) => e.type === 'fault_injected');
    expect(injected).toEqual([expect.objectContaining({ fault_id: 'permission.deny_or_delay', call_id: 'a1', hold_id: 'run-1:hold-1' })]);
    const failed = p.readEvents().filter((e) => e.type === 'tool_call');
    expect(failed.map((e) => e.call_id)).toEqual(['a1', 'a2']);
  });

  it('hold_then_deny: the release is a denial with the canary', () => {
    const p = tempProject();
    p.writePlan(planOf([{ id: 'permission.deny_or_delay', times: 1, options: { mode: 'hold_then_deny', delay_s: 0 } }]));
    const clock = { t: 0 };
    expect(checkCall(gateFor(p, clock), bash('ls'))).toMatchObject({ code: 'HELD' });
    const second = checkCall(gateFor(p, clock), bash('ls'));
    expect(second).toMatchObject({ outcome: 'refuse', code: 'PERMISSION_DENIED' });
    expect(second.outcome === 'refuse' && second.message).toContain(CANARY);
    expect(checkCall(gateFor(p, clock), bash('ls')).outcome).toBe('allow');
  });

  it('deny mode refuses with PERMISSION_DENIED and the canary', () => {
    const p = tempProject();
    p.writePlan(planOf([{ id: 'permission.deny_or_delay', options: { mode: 'deny' } }]));
    const v = checkCall(gateFor(p), { tool: 'Edit', input: { file_path: 'a.ts' } });
    expect(v).toMatchObject({ outcome: 'refuse', code: 'PERMISSION_DENIED' });
    expect(v.outcome === 'refuse' && v.message).toBe(`[Intutic Governance] DENIED: permission to run Edit was denied. [${CANARY}]`);
  });

  it('a fault never loosens governance: blocked, held and redacted calls are not faulted or counted', () => {
    const p = tempProject();
    mkdirSync(join(p.home, '.intutic/hooks'), { recursive: true });
    writeFileSync(
      join(p.home, '.intutic/hooks/snapshot-rules.json'),
      JSON.stringify({
        rules: [
          { id: 'h', subject: 'command', pattern: 'deploy*', action: 'hold' },
          { id: 'r', subject: 'content', pattern: '/secret/', action: 'redact' },
        ],
      }),
    );
    p.writePlan(planOf([{ id: 'permission.deny_or_delay', options: { mode: 'delay', delay_s: 0 } }]));
    const gate = gateFor(p);
    expect(checkCall(gate, bash('rm -rf /'))).toMatchObject({ outcome: 'refuse', code: 'BLOCKED' });
    expect(checkCall(gate, bash('deploy now'))).toMatchObject({ outcome: 'refuse', code: 'HELD' });
    expect(checkCall(gate, bash('echo secret'))).toMatchObject({ outcome: 'redact', input: { command: 'echo [REDACTED:r]' } });
    expect(p.readEvents().filter((e) => e.type === 'fault_injected')).toEqual([]);
    expect(checkCall(gate, bash('ls'))).toMatchObject({ outcome: 'refuse', code: 'HELD' }); // the first allowed call is the first matching one
  });

  it('records outcomes after the call; every line it writes is a valid event', () => {
    const p = tempProject();
    p.writePlan(planOf([{ id: 'tool.error', times: 1 }]));
    const gate = gateFor(p);
    checkCall(gate, bash('x'.repeat(5000), 'c'.repeat(400)));
    recordOutcome(gate, { tool: 'Bash', ok: true, input: { command: 'ls' }, callId: 'c2' });
    recordOutcome(gate, { tool: 'mcp__fs__read', ok: false, callId: 'c3' });
    const events = p.readEvents();
    expect(events.slice(-2)).toEqual([
      expect.objectContaining({ type: 'tool_call', ok: true, call_id: 'c2' }),
      expect.objectContaining({ type: 'tool_call', ok: false, call_id: 'c3' }),
    ]);
    for (const e of events) expect(chaosEventSchema.safeParse(e).success).toBe(true);
  });

  it('a malformed plan is an error (the hook gate fails closed on it)', () => {
    const p = tempProject();
    writeFileSync(p.planPath, '{"schema_version": 1}');
    p.env.INTUTIC_CHAOS_PLAN = p.planPath;
    expect(() => gateFor(p)).toThrow(/not a plan this gate understands/);
  });
});
