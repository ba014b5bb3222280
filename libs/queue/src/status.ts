// Read a run back from Redis for `chaos status` and `chaos inspect`: every job's state, timings,
// failure reason, progress and logs. A job that is active but whose lock is gone belongs to a worker
// that died; it is shown as such until the next worker fails it as stalled. --parallel: a faulted
// repetition the gate has not added yet is 'pending', not 'missing'; only a job that should exist and
// does not is 'missing'.
import type { Job, JobState } from 'bullmq';
import { IntuticError } from '@intutic/errors';
import { JOB_NAMES, QUEUE_NAME, runJobIds, scoringJobId, type RunJobKind } from './names.ts';
import {
  repetitionJobResultSchema,
  repetitionProgressSchema,
  runPayloadSchema,
  runResultSchema,
  type RepetitionJobResult,
  type RepetitionProgress,
  type RunPayload,
  type RunResult,
} from './payload.ts';
import type { RunQueue } from './run-queue.ts';

export const STALLED_REASON = 'job stalled more than allowable limit';

/** BullMQ's reasons, said the way a user needs them. */
const isStalledReason = (reason: string | undefined | null): boolean =>
  Boolean(reason && (reason === STALLED_REASON || reason.includes('started more than allowable limit')));

export function explainFailure(reason: string | undefined | null): string | null {
  if (!reason) return null;
  if (isStalledReason(reason)) {
    return "its worker stopped in the middle of it (killed, crashed, or cut off from Redis for longer than the job's lock); a repetition is never retried";
  }
  const child = /^child .*:([^:]+) failed$/.exec(reason);
  if (child) return `it depended on ${child[1]}, which failed`;
  return reason;
}

export interface JobView {
  id: string;
  kind: RunJobKind;
  index: number;
  /**
   * 'missing': the job should be in Redis and is not. 'pending': a faulted repetition of a --parallel
   * run that the gate adds once every baseline is done.
   */
  state: JobState | 'unknown' | 'missing' | 'pending';
  /** Active, but no worker holds its lock: the worker died. */
  orphaned: boolean;
  /** Failed as stalled: its worker died in the middle of it and a later worker failed it. */
  stalled: boolean;
  created_at: number | null;
  /** When the repetition really started (its progress says; BullMQ's start for the other jobs). */
  started_at: number | null;
  finished_at: number | null;
  /** A repetition's worker's last sign of life while it ran (null: none recorded). */
  alive_at: number | null;
  failed_reason: string | null;
  result: RepetitionJobResult | null;
  progress: RepetitionProgress | null;
  logs: string[];
}

export interface RunView {
  run_id: string;
  payload: RunPayload;
  state: 'queued' | 'running' | 'finished' | 'failed';
  cancel_reason: string | null;
  result: RunResult | null;
  jobs: JobView[];
}

export async function viewJob(rq: RunQueue, id: string, kind: JobView['kind'], index: number, withLogs: boolean): Promise<JobView> {
  const job: Job | undefined = await rq.queue.getJob(id);
  const empty: JobView = {
    id,
    kind,
    index,
    state: 'missing',
    orphaned: false,
    stalled: false,
    created_at: null,
    started_at: null,
    finished_at: null,
    alive_at: null,
    failed_reason: null,
    result: null,
    progress: null,
    logs: [],
  };
  if (!job) return empty;
  const state = await job.getState();
  const locked = state === 'active' ? (await rq.redis.exists(`${rq.config.prefix}:${QUEUE_NAME}:${id}:lock`)) === 1 : true;
  const result = kind === 'score' ? null : (repetitionJobResultSchema.safeParse(job.returnvalue).data ?? null);
  const progress = repetitionProgressSchema.safeParse(job.progress).data ?? null;
  const logs = withLogs ? (await rq.queue.getJobLogs(id, 0, -1, true)).logs : [];
  return {
    ...empty,
    state,
    orphaned: state === 'active' && !locked,
    stalled: state === 'failed' && isStalledReason(job.failedReason),
    created_at: job.timestamp ?? null,
    started_at: progress?.started_at ?? job.processedOn ?? null,
    finished_at: job.finishedOn ?? null,
    alive_at: progress?.alive_at ?? null,
    failed_reason: explainFailure(job.failedReason),
    result,
    progress,
    logs,
  };
}

/**
 * How long a job ran (ms), or null when it has not ended. A repetition whose worker died ran until
 * the worker's last sign of life, not until the later worker that failed it as stalled.
 */
export function ranFor(job: JobView): number | null {
  if (job.started_at === null || job.finished_at === null) return null;
  const end = job.stalled && job.alive_at !== null ? job.alive_at : job.finished_at;
  return Math.max(0, end - job.started_at);
}

/** --parallel: the faulted repetitions not in Redis while the gate has yet to add them are 'pending'. */
export function pendingUntilGate(jobs: JobView[]): JobView[] {
  const gate = jobs.find((j) => j.kind === 'gate');
  const gateToCome = gate !== undefined && !['completed', 'failed', 'missing', 'unknown'].includes(gate.state);
  if (!gateToCome) return jobs;
  return jobs.map((j) => (j.kind === 'faulted' && j.state === 'missing' ? { ...j, state: 'pending' as const } : j));
}

/** The run's state from its jobs, the scoring job last; a run none of whose jobs has started is queued. */
export function runState(jobs: JobView[]): RunView['state'] {
  const root = jobs[jobs.length - 1]!;
  if (root.state === 'completed') return 'finished';
  if (root.state === 'failed') return 'failed';
  if (jobs.some((j) => j.state === 'active' || j.state === 'completed' || j.state === 'failed')) return 'running';
  return 'queued';
}

export async function getRun(rq: RunQueue, runId: string, options: { logs?: boolean } = {}): Promise<RunView> {
  const root = await rq.queue.getJob(scoringJobId(runId));
  if (!root) throw new IntuticError('E_RUN_NOT_FOUND', `no run ${runId} in the queue`, { hints: ['`intutic chaos status` lists the runs Redis holds.'] });
  const payload = runPayloadSchema.parse(root.data);
  const viewed: JobView[] = [];
  // In run order: the gate is read before the faulted jobs, so one it adds meanwhile is seen, never taken for missing.
  for (const { id, kind, index } of runJobIds(runId, payload.experiment.repeat, { parallel: payload.parallel })) {
    viewed.push(await viewJob(rq, id, kind, index, options.logs ?? false));
  }
  const jobs = pendingUntilGate(viewed);
  const result = runResultSchema.safeParse(root.returnvalue).data ?? null;
  return { run_id: runId, payload, state: runState(jobs), cancel_reason: await rq.cancelReason(runId), result, jobs };
}

/** Every run the queue holds, newest first. */
export async function listRuns(rq: RunQueue): Promise<RunView[]> {
  const roots = await rq.queue.getJobs(['waiting-children', 'waiting', 'prioritized', 'active', 'completed', 'failed', 'delayed'], 0, -1);
  const ids = [
    ...new Set(
      roots
        .filter((j) => j?.name === JOB_NAMES.score)
        .map((j) => runPayloadSchema.safeParse(j.data).data?.run_id)
        .filter((id): id is string => Boolean(id)),
    ),
  ];
  const runs = await Promise.all(ids.map((id) => getRun(rq, id)));
  return runs.sort((a, b) => b.payload.created_at.localeCompare(a.payload.created_at));
}

/** A run named by its id or an unambiguous prefix of it. */
export async function resolveRunId(rq: RunQueue, idOrPrefix: string): Promise<string> {
  if (await rq.queue.getJob(scoringJobId(idOrPrefix))) return idOrPrefix;
  const matches = (await listRuns(rq)).map((r) => r.run_id).filter((id) => id.startsWith(idOrPrefix));
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) throw new IntuticError('E_USAGE', `${idOrPrefix} matches several runs: ${matches.join(', ')}`);
  throw new IntuticError('E_RUN_NOT_FOUND', `no run ${idOrPrefix} in the queue`, { hints: ['`intutic chaos status` lists the runs Redis holds.'] });
}
