// Hold semantics and fault counting, as a pure step with a fake clock (the spec's "How a permission
// delay works"), plus the shared conformance sequences the Python SDK replays too.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applicablePlan } from '@intutic/faults/placement';
import { applyFaults, emptyState, type FaultCall, type FaultOutcome } from '../src/index.ts';
import { planOf } from './helpers.ts';

const call = (tool: string, inputHash = 'h1', mcp = false): FaultCall => ({ tool, inputHash, mcp });
const kind = (o: FaultOutcome) => `${o.kind}${'injected' in o && o.injected ? '*' : ''}`;

function run(plan: ReturnType<typeof planOf>, steps: [number, FaultCall][]): string[] {
  const state = emptyState(plan.run_id);
  return steps.map(([t, c]) => kind(applyFaults(state, plan, c, t)));
}

describe('permission.deny_or_delay', () => {
  it('deny: every matching call is denied, each one an injection', () => {
    const plan = planOf([{ id: 'permission.deny_or_delay', match: { tool: 'Edit' }, options: { mode: 'deny', delay_s: 0 } }]);
    expect(
      run(plan, [
        [0, call('Edit')],
        [1, call('Edit')],
        [2, call('Read')],
      ]),
    ).toEqual(['deny*', 'deny*', 'none']);
  });

  it('delay with delay_s > 0: identical retries are held until delay_s after the first refusal, then one is let through', () => {
    const plan = planOf([{ id: 'permission.deny_or_delay', options: { mode: 'delay', delay_s: 10 } }]);
    const steps: [number, FaultCall][] = [
      [0, call('Bash')],
      [3_000, call('Bash')],
      [9_999, call('Bash')],
      [10_000, call('Bash')],
      [10_001, call('Bash')],
    ];
    // The last call is a new matching call after the hold ended: held again as a new hold.
    expect(run(plan, steps)).toEqual(['held*', 'held', 'held', 'released', 'held*']);
  });

  it('hold_then_deny: after delay_s the identical retry is denied and the hold is over', () => {
    const plan = planOf([{ id: 'permission.deny_or_delay', times: 1, options: { mode: 'hold_then_deny', delay_s: 5 } }]);
    expect(
      run(plan, [
        [0, call('Bash')],
        [1_000, call('Bash')],
        [5_000, call('Bash')],
        [6_000, call('Bash')],
      ]),
    ).toEqual(['held*', 'held', 'deny', 'none']);
  });

  it('delay_s 0: held once, and the immediate retry decides', () => {
    const delay = planOf([{ id: 'permission.deny_or_delay', times: 1, options: { mode: 'delay', delay_s: 0 } }]);
    expect(
      run(delay, [
        [0, call('Bash')],
        [0, call('Bash')],
        [0, call('Bash')],
      ]),
    ).toEqual(['held*', 'released', 'none']);
    const thenDeny = planOf([{ id: 'permission.deny_or_delay', times: 1, options: { mode: 'hold_then_deny', delay_s: 0 } }]);
    expect(
      run(thenDeny, [
        [0, call('Bash')],
        [1, call('Bash')],
      ]),
    ).toEqual(['held*', 'deny']);
  });

  it('a different call is neither the retry nor the release: other input, other tool', () => {
    const plan = planOf([{ id: 'permission.deny_or_delay', times: 1, options: { mode: 'delay', delay_s: 5 } }]);
    const state = emptyState(plan.run_id);
    expect(kind(applyFaults(state, plan, call('Bash', 'a'), 0))).toBe('held*');
    expect(kind(applyFaults(state, plan, call('Bash', 'b'), 6_000))).toBe('none'); // times used up: a new matching call, not faulted
    expect(kind(applyFaults(state, plan, call('Read', 'a'), 6_000))).toBe('none');
    expect(kind(applyFaults(state, plan, call('Bash', 'a'), 6_000))).toBe('released');
  });

  it('concurrent holds of different calls are independent', () => {
    const plan = planOf([{ id: 'permission.deny_or_delay', options: { mode: 'hold_then_deny', delay_s: 2 } }]);
    const state = emptyState(plan.run_id);
    const a = applyFaults(state, plan, call('Bash', 'a'), 0);
    const b = applyFaults(state, plan, call('Bash', 'b'), 1_000);
    expect([kind(a), kind(b)]).toEqual(['held*', 'held*']);
    expect('holdId' in a && 'holdId' in b && a.holdId !== b.holdId).toBe(true);
    expect(kind(applyFaults(state, plan, call('Bash', 'a'), 2_000))).toBe('deny');
    expect(kind(applyFaults(state, plan, call('Bash', 'b'), 2_000))).toBe('held');
    expect(kind(applyFaults(state, plan, call('Bash', 'b'), 3_000))).toBe('deny');
  });

  it('one hold is one injection: retries neither count as matching calls nor use up times', () => {
    const plan = planOf([{ id: 'permission.deny_or_delay', after_calls: 0, times: 2, options: { mode: 'delay', delay_s: 1 } }]);
    const state = emptyState(plan.run_id);
    for (const t of [0, 100, 200, 300]) applyFaults(state, plan, call('Bash', 'a'), t);
    expect(state.counters[0]).toEqual({ seen: 1, injected: 1 });
    expect(kind(applyFaults(state, plan, call('Bash', 'a'), 1_000))).toBe('released');
    expect(state.counters[0]).toEqual({ seen: 1, injected: 1 });
  });
});

describe('tool.error and counting', () => {
  it('skips after_calls matching calls, then injects at most times', () => {
    const plan = planOf([{ id: 'tool.error', match: { tool: 'Bash' }, after_calls: 2, times: 2, options: { message: 'boom' } }]);
    const kinds = run(
      plan,
      [0, 1, 2, 3, 4, 5].map((t) => [t, call('Bash', `h${t}`)] as [number, FaultCall]),
    );
    expect(kinds).toEqual(['none', 'none', 'error*', 'error*', 'none', 'none']);
  });

  it('leaves MCP tools to the MCP proxy, but holds them with permission faults', () => {
    expect(run(planOf([{ id: 'tool.error' }]), [[0, call('mcp__fs__read_file', 'h', true)]])).toEqual(['none']);
    expect(run(planOf([{ id: 'permission.deny_or_delay', options: { mode: 'deny' } }]), [[0, call('mcp__fs__read_file', 'h', true)]])).toEqual(['deny*']);
  });

  it('matches MCP tools by their bare name', () => {
    expect(
      run(planOf([{ id: 'permission.deny_or_delay', match: { tool: 'read_file' }, options: { mode: 'deny' } }]), [[0, call('mcp__fs__read_file', 'h', true)]]),
    ).toEqual(['deny*']);
  });

  it('ignores faults other components inject', () => {
    expect(run(planOf([{ id: 'llm.rate_limit' }, { id: 'tool.stale_data' }, { id: 'egress.dns_fail', match: { host: 'x' } }]), [[0, call('Bash')]])).toEqual([
      'none',
    ]);
  });

  it('only the first fault that fires injects; the others still count the call', () => {
    const plan = planOf([
      { id: 'tool.error', times: 1 },
      { id: 'permission.deny_or_delay', options: { mode: 'deny' } },
    ]);
    const state = emptyState(plan.run_id);
    const first = applyFaults(state, plan, call('Bash', 'a'), 0);
    expect(first.kind === 'error' && first.fault.index).toBe(0);
    expect(state.counters[1]).toEqual({ seen: 1, injected: 0 });
    const second = applyFaults(state, plan, call('Bash', 'b'), 1);
    expect(second.kind === 'deny' && second.fault.index).toBe(1);
  });
});

interface Sequence {
  name: string;
  faults: Parameters<typeof planOf>[0];
  steps: { t_ms: number; tool: string; input_hash: string; mcp?: boolean; expect: string }[];
  /** false: the gate runs outside a sandbox, so the plan's mutating faults are left out first. */
  sandbox?: boolean;
  expect_refused?: number[];
}

describe('shared fault sequences (the Python SDK replays these)', () => {
  const fixture = JSON.parse(readFileSync(new URL('../conformance/fault-sequences.json', import.meta.url), 'utf8')) as { sequences: Sequence[] };
  it.each(fixture.sequences.map((s) => [s.name, s] as const))('%s', (_, seq) => {
    const { plan, refused } = applicablePlan(planOf(seq.faults), { mutatingAllowed: seq.sandbox !== false, why: 'conformance' });
    if (seq.expect_refused) expect(refused.map((f) => f.index)).toEqual(seq.expect_refused);
    const state = emptyState(plan.run_id);
    const got = seq.steps.map((s) => kind(applyFaults(state, plan, call(s.tool, s.input_hash, s.mcp ?? false), s.t_ms)));
    expect(got).toEqual(seq.steps.map((s) => s.expect));
  });
});
