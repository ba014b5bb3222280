// The spec's verdicts: scored (every repetition ran), aborted (an abort condition or a runner error
// stopped the run; the score covers the probes reached), invalid (a baseline failed verify, or a
// complete run in which no fault fired). Each comes with the exit code `chaos run` ends with.
import { z } from 'zod';
import { EXIT } from '@intutic/errors';
import { injectionCount, type RepetitionRecord } from './records.ts';

export const RUN_VERDICTS = ['scored', 'aborted', 'invalid'] as const;
export const runVerdictSchema = z.enum(RUN_VERDICTS);
export type VerdictKind = z.infer<typeof runVerdictSchema>;

export interface Verdict {
  verdict: VerdictKind;
  reason: string;
  exit_code: number;
}

const EXIT_OF: Record<VerdictKind, number> = { scored: EXIT.ok, aborted: EXIT.aborted, invalid: EXIT.invalid };
const verdict = (kind: VerdictKind, reason: string): Verdict => ({ verdict: kind, reason, exit_code: EXIT_OF[kind] });

/** A baseline whose verify ran and failed, not because the runner stopped it. */
export function failedBaseline(records: readonly RepetitionRecord[]): RepetitionRecord | undefined {
  return records.find((r) => r.kind === 'baseline' && r.abort === null && r.error === null && r.verify_exit_code !== null && r.verify_exit_code !== 0);
}

export function decideVerdict(records: readonly RepetitionRecord[], complete: boolean): Verdict {
  const failed = failedBaseline(records);
  if (failed !== undefined) {
    return verdict(
      'invalid',
      `baseline repetition ${failed.index} failed verify (exit ${failed.verify_exit_code}): the task fails without faults, ` +
        'so the run says nothing about resilience, and the faulted repetitions were skipped',
    );
  }
  const stopped = records.find((r) => r.error !== null || r.abort !== null);
  if (stopped !== undefined) {
    const what =
      stopped.error !== null
        ? `a runner error in ${stopped.kind} repetition ${stopped.index}: ${stopped.error}`
        : `abort condition ${stopped.abort!.condition} in ${stopped.kind} repetition ${stopped.index} (${stopped.abort!.detail})`;
    return verdict('aborted', `the run was stopped by ${what}; the score covers the probes reached`);
  }
  if (!complete) {
    return verdict('aborted', `the run stopped after ${records.length} repetitions, before every repetition ran; the score covers the probes reached`);
  }
  const faulted = records.filter((r) => r.kind === 'faulted');
  if (faulted.every((r) => injectionCount(r.facts) === 0)) {
    return verdict(
      'invalid',
      'no fault fired in any faulted repetition: the probes measured the agent without any fault (the warnings say which component never saw the plan)',
    );
  }
  return verdict('scored', 'every repetition ran');
}
