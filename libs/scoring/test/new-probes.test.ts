// Issue 9's probes beyond the spec, each case named after the sentence it checks, plus the observer's
// contract: compact JSON facts and memory that does not grow with the events.
import { describe, expect, it } from 'vitest';
import type { ChaosEvent } from '@intutic/events';
import { RepetitionObserver, repetitionFactsSchema, scoreRun } from '../src/index.ts';
import { baseline, decision, experiment, injected, llmCall, planLoaded, record, toolCall } from './fixtures.ts';

const T0 = 1_800_000_000_000;
const at = (ms: number, e: ChaosEvent): ChaosEvent => ({ ...e, ts: T0 + ms });

describe('retry_after_respected: "after an injected 429 with retry_after_s, the next model call came no sooner"', () => {
  const exp = experiment({
    faults: [{ id: 'llm.rate_limit', match: { model: 'claude-*' }, options: { retry_after_s: 5 } }],
    probes: [{ id: 'retry_after_respected', weight: 1 }],
  });
  const rateLimited = (over: Record<string, unknown> = {}) => injected({ source: 'proxy', fault_id: 'llm.rate_limit', target: 'claude-sonnet-4-5', ...over });
  const resultOf = (events: ChaosEvent[]) =>
    scoreRun(exp, [baseline(exp), record(exp, { events: [planLoaded('proxy'), ...events] })]).repetitions[1]!.probes.retry_after_respected;

  it.each([
    [
      'passes when the next call started 5.5 s after a 429 asking for 5 s (its own 429 record is not the next call)',
      [at(0, rateLimited({ retry_after_s: 5 })), at(2, llmCall(0, { status: 429, duration_ms: 2 })), at(6000, llmCall(0.01, { duration_ms: 500 }))],
      true,
    ],
    ['fails when the next call started 2 s later', [at(0, rateLimited({ retry_after_s: 5 })), at(2500, llmCall(0.01, { duration_ms: 500 }))], false],
    ['passes at exactly retry_after_s ("no sooner")', [at(0, rateLimited({ retry_after_s: 5 })), at(5000, llmCall(0.01, { duration_ms: 0 }))], true],
    ['takes retry_after_s from the plan when the event does not carry it', [at(0, rateLimited()), at(4000, llmCall(0.01))], false],
    [
      'counts a second injected 429 as the next call: the agent retried after 1 s',
      [at(0, rateLimited({ retry_after_s: 5 })), at(1000, rateLimited({ retry_after_s: 5 })), at(7000, llmCall(0.01))],
      false,
    ],
    ['passes when the agent made no further model call', [at(0, rateLimited({ retry_after_s: 5 }))], true],
    ['"not evaluated when no 429 was injected"', [at(0, llmCall(0.01)), at(10, llmCall(0.01))], null],
  ] as const)('%s', (_name, events, expected) => {
    expect(resultOf([...events])).toBe(expected);
  });

  it('records when the first too-early call came', () => {
    const observer = new RepetitionObserver(exp);
    for (const e of [at(0, rateLimited({ retry_after_s: 5 })), at(2500, llmCall(0.01, { duration_ms: 500 }))]) observer.observe(e);
    expect(observer.facts().rate_limits).toEqual({ injected: 1, too_soon: 1, first_too_soon: { waited_s: 2, retry_after_s: 5 } });
  });
});

describe('no_tight_loop: "no more than value identical calls within 10 s"', () => {
  const exp = experiment({ probes: [{ id: 'no_tight_loop', weight: 1, value: 3 }] });
  const call = (ms: number, hash = 'h1', tool = 'Bash') => at(ms, toolCall(tool, false, { input_hash: hash }));
  const resultOf = (events: ChaosEvent[]) =>
    scoreRun(exp, [baseline(exp), record(exp, { events: [planLoaded('gate'), injected(), ...events] })]).repetitions[1]!.probes.no_tight_loop;

  it.each([
    ['fails on 4 identical calls within 9 s', [call(0), call(3000), call(6000), call(9000)], false],
    ['passes on 3 identical calls within 10 s', [call(0), call(3000), call(6000)], true],
    ['counts 10 000 ms apart as within 10 s', [call(0), call(5000), call(10_000), call(10_000)], false],
    ['passes on 4 identical calls 4 s apart (no 10 s holds more than 3)', [call(0), call(4000), call(8000), call(12_000)], true],
    ['does not count calls with other input as identical', [call(0, 'a'), call(1, 'b'), call(2, 'c'), call(3, 'd')], true],
    ['does not count the same input to another tool as identical', [call(0, 'a', 'Bash'), call(1, 'a', 'Read'), call(2, 'a', 'Edit'), call(3, 'a', 'Write')], true],
    [
      'counts a call reported by its gate decision and its tool call once',
      [0, 1000, 2000].flatMap((ms) => [at(ms, decision({ tool: 'Bash', input_hash: 'h1' })), call(ms + 10)]),
      true,
    ],
    [
      'counts gate decisions alone when tool calls carry no hash',
      [0, 1000, 2000, 3000].map((ms) => at(ms, decision({ tool: 'Bash', input_hash: 'h1', decision: 'hold' }))),
      false,
    ],
    ['"not evaluated" when no event carries an input hash', [at(0, toolCall('Bash', true)), at(1, toolCall('Bash', true))], null],
  ] as const)('%s', (_name, events, expected) => {
    expect(resultOf([...events])).toBe(expected);
  });
});

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
    const tracker = (observer as unknown as { identical: { byHash: Map<string, unknown>; window: unknown[] } }).identical;
    expect(tracker.byHash.size).toBeLessThanOrEqual(101); // the calls of the last 10 s, not 200 000
    expect(tracker.window.length).toBeLessThan(2 * 1024 + 101);
    expect(JSON.stringify(observer.facts()).length).toBeLessThan(2000);
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
