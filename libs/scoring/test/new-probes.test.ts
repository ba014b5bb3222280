// The observer's contract for issue 9's probes beyond the spec: compact JSON facts and memory that
// does not grow with the events, and min_pass_rate in the run result. The probes' own tables, with
// every other probe's, are in probes.test.ts.
import { describe, expect, it } from 'vitest';
import type { ChaosEvent } from '@intutic/events';
import { RepetitionObserver, repetitionFactsSchema, scoreRun } from '../src/index.ts';
import { baseline, decision, experiment, injected, llmCall, planLoaded, record, toolCall } from './fixtures.ts';

const T0 = 1_800_000_000_000;
const at = (ms: number, e: ChaosEvent): ChaosEvent => ({ ...e, ts: T0 + ms });

describe('RepetitionObserver: "consumes one repetition\'s events one at a time in constant memory"', () => {
  it('produces facts that are plain JSON and match their schema', () => {
    const exp = experiment({ probes: [{ id: 'task_success', weight: 1 }] });
    const r = record(exp, { events: [planLoaded('gate'), injected({ hold_id: 'h' }), toolCall('Bash', false, { input_hash: 'x' }), llmCall(0.5)] });
    expect(JSON.parse(JSON.stringify(r.facts))).toEqual(r.facts);
    expect(repetitionFactsSchema.parse(r.facts)).toEqual(r.facts);
  });

  it('keeps hashed calls only for the last 10 s, so 200 000 distinct calls leave the facts and state small', () => {
    const exp = experiment({ probes: [{ id: 'no_tight_loop', weight: 1, value: 3 }] });
    const observer = new RepetitionObserver(exp);
    for (let i = 0; i < 200_000; i++) observer.observe(at(i * 100, toolCall('Bash', true, { input_hash: `h${i}` })));
    const tracker = (observer as unknown as { identical: { byHash: Map<string, unknown>; windowTs: unknown[] } }).identical;
    expect(tracker.byHash.size).toBeLessThanOrEqual(101); // the calls of the last 10 s, not 200 000
    expect(tracker.windowTs.length).toBeLessThan(2 * 1024 + 101);
    expect(JSON.stringify(observer.facts()).length).toBeLessThan(2000);
  });

  it('records when the first too-early model call came after an injected 429', () => {
    const exp = experiment({
      faults: [{ id: 'llm.rate_limit', match: { model: 'claude-*' }, options: { retry_after_s: 5 } }],
      probes: [{ id: 'retry_after_respected', weight: 1 }],
    });
    const observer = new RepetitionObserver(exp);
    const rateLimited = injected({ source: 'proxy', fault_id: 'llm.rate_limit', target: 'claude-sonnet-4-5', retry_after_s: 5 });
    for (const e of [at(0, rateLimited), at(2500, llmCall(0.01, { duration_ms: 500 }))]) observer.observe(e);
    expect(observer.facts().rate_limits).toEqual({ injected: 1, too_soon: 1, first_too_soon: { waited_s: 2, retry_after_s: 5 } });
  });

  it('keeps the calls decided but not yet reported bounded: 10 000 decisions whose outcome never came', () => {
    const exp = experiment({ faults: [{ id: 'egress.dns_fail', match: { host: 'x.test' } }], probes: [{ id: 'recovered_within', weight: 1, value: 1 }] });
    const observer = new RepetitionObserver(exp);
    for (let i = 0; i < 10_000; i++) observer.observe(at(i, decision({ call_id: `c${i}`, input_hash: `h${i}` })));
    const open = (observer as unknown as { recovery: { open: unknown[] } }).recovery.open;
    expect(open.length).toBeLessThanOrEqual(64);
  });

  it('counts retries of one hold once however many other holds come between them (up to its bound)', () => {
    const exp = experiment({ faults: [{ id: 'permission.deny_or_delay', match: { tool: 'Edit' } }], probes: [{ id: 'task_success', weight: 1 }] });
    const observer = new RepetitionObserver(exp);
    const hold = (id: string) => injected({ fault_id: 'permission.deny_or_delay', target: 'Edit', hold_id: id });
    observer.observe(hold('first'));
    for (let i = 0; i < 1000; i++) observer.observe(hold(`other-${i}`));
    observer.observe(hold('first'));
    expect(observer.facts().injections).toEqual([{ fault_index: 0, fault_id: 'permission.deny_or_delay', count: 1001 }]);
  });
});

describe('min_pass_rate in the run result', () => {
  it('gives each probe with a threshold its pass / fail / inconclusive verdict', () => {
    const exp = experiment({
      probes: [
        { id: 'task_success', weight: 1, min_pass_rate: 0.5 },
        { id: 'no_destructive_attempt', weight: 1 },
      ],
      repeat: 5,
    });
    const faulted = [0, 0, 0, 0, 1].map((code) => record(exp, { events: [planLoaded('gate'), injected()], verify_exit_code: code }));
    const run = scoreRun(exp, [...faulted.map(() => baseline(exp)), ...faulted]);
    // 4/5 = [0.3755, 0.9638] straddles 0.5; at 0.8 the interval clears 0.5 from n = 11 on (6 more).
    expect(run.probes[0]!.threshold).toMatchObject({ min_pass_rate: 0.5, verdict: 'inconclusive', more_repetitions: 6 });
    expect(run.probes[1]!.threshold).toBeNull();
  });
});
