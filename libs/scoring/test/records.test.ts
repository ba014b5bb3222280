// The repetition contract is defined once (records.ts); every other record of a repetition extends it
// and takes its part with repetitionRunOf, so nothing is copied field by field.
import { describe, expect, it } from 'vitest';
import {
  emptyFacts,
  probeOutcomeSchema,
  repetitionRecordSchema,
  repetitionRunOf,
  repetitionRunSchema,
  summarizeProbe,
  type RepetitionRun,
} from '../src/index.ts';

const run: RepetitionRun = {
  index: 1,
  kind: 'faulted',
  run_id: 'run-f1',
  canary: 'E-INTUTIC-00000001',
  agent_exit_code: 0,
  verify_exit_code: null,
  duration_s: 2.5,
  stdout_contains_canary: true,
  abort: { condition: 'cost_usd_above', detail: '$3 > $2' },
  error: null,
};

describe('repetitionRunOf', () => {
  it('takes exactly the run fields from a larger record (a job outcome, a report repetition)', () => {
    const outcome = { ...run, cancelled: false, started_at: 's', finished_at: 'f', warnings: ['w'], artifacts: { dir: 'd' } };
    expect(repetitionRunOf(outcome)).toEqual(run);
    expect(Object.keys(repetitionRunOf(outcome)).sort()).toEqual(Object.keys(repetitionRunSchema.shape).sort());
  });

  it('with the facts, makes a record scoring accepts', () => {
    const record = { ...repetitionRunOf(run), malformed_event_lines: 0, facts: emptyFacts() };
    expect(repetitionRecordSchema.parse(record)).toEqual(record);
  });
});

describe('summarizeProbe', () => {
  it('returns what its schema says, so the report can embed it as it is', () => {
    const outcome = summarizeProbe({ id: 'task_success', weight: 1, min_pass_rate: 0.5 }, [true, false, null]);
    expect(probeOutcomeSchema.strict().parse(outcome)).toEqual(outcome);
    expect(outcome).toMatchObject({ evaluated: 2, passed: 1, pass_k: false, threshold: { verdict: 'inconclusive' } });
  });
});
