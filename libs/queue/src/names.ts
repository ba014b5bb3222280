// Names shared by the CLI, the workers and the tests: the queue, its key prefix, job ids, the Redis
// keys and pub/sub channel of one run. BullMQ job ids must not contain ':'.
import { randomBytes } from 'node:crypto';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
export const DEFAULT_PREFIX = 'intutic';
export const QUEUE_NAME = 'chaos';

export const JOB_NAMES = { repetition: 'repetition', score: 'score', phase: 'phase' } as const;

export type RepetitionKind = 'baseline' | 'faulted';

/** A run id readable in `chaos status`: local date and time, then random hex. */
export function newRunId(now: Date = new Date(), random: (n: number) => Buffer = randomBytes): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  const stamp = `${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}-${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`;
  return `${stamp}-${random(3).toString('hex')}`;
}

/** A repetition's job id, which is also its run id in the plan, the events and the report. */
export function repetitionJobId(runId: string, kind: RepetitionKind, index: number): string {
  return `${runId}-${kind === 'baseline' ? 'b' : 'f'}${index}`;
}

/** --parallel: the gate that starts the faulted phase once every baseline repetition is done. */
export function phaseJobId(runId: string, kind: RepetitionKind): string {
  return `${runId}-phase-${kind === 'baseline' ? 'b' : 'f'}`;
}

export function scoringJobId(runId: string): string {
  return `${runId}-score`;
}

/** A job of a run: a repetition, the faulted phase's gate (--parallel only), or the scoring job. */
export type RunJobKind = RepetitionKind | 'gate' | 'score';

/**
 * Every job id of a run in the order the flow runs them (flow.ts): the baselines, then with
 * --parallel the gate that adds the faulted repetitions, then those, then scoring. Gate and scoring
 * have index 0. With --parallel the faulted jobs exist in Redis only once the gate has run.
 */
export function runJobIds(runId: string, repeat: number, { parallel = false }: { parallel?: boolean } = {}): { id: string; kind: RunJobKind; index: number }[] {
  const ids: { id: string; kind: RunJobKind; index: number }[] = [];
  for (const kind of ['baseline', 'faulted'] as const) {
    if (kind === 'faulted' && parallel) ids.push({ id: phaseJobId(runId, 'faulted'), kind: 'gate', index: 0 });
    for (let i = 1; i <= repeat; i++) ids.push({ id: repetitionJobId(runId, kind, i), kind, index: i });
  }
  ids.push({ id: scoringJobId(runId), kind: 'score', index: 0 });
  return ids;
}

export interface RunKeys {
  cancel: string;
  progress: string;
  /** --parallel: the first stop (abort, invalid, error) of a phase, so its other repetitions end too. */
  stop: string;
}

export function runKeys(prefix: string, runId: string): RunKeys {
  return { cancel: `${prefix}:chaos-run:${runId}:cancel`, progress: `${prefix}:chaos-run:${runId}:progress`, stop: `${prefix}:chaos-run:${runId}:stop` };
}

/** INCR counter giving each run its BullMQ priority, so one worker finishes a run before the next. */
export function priorityCounterKey(prefix: string): string {
  return `${prefix}:chaos-run:priority`;
}
