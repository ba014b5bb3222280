// The one processor every worker runs. It knows the flow's semantics and nothing about sandboxes:
// a repetition job first looks at the job before it in the chain (its only child) and at the run's
// cancel flag, and skips when the run has already stopped — aborted, invalid, cancelled, or an
// earlier job failed — otherwise it hands the repetition to the runner. The scoring job gets every
// repetition's state. Agent failure, verify failure and an injected fault are results, not failures.
import type { Job, Processor } from 'bullmq';
import { JOB_NAMES, repetitionJobId, runJobIds } from './names.ts';
import {
  repetitionJobDataSchema,
  repetitionJobResultSchema,
  runPayloadSchema,
  type RepetitionJobData,
  type RepetitionJobResult,
  type RepetitionOutcome,
  type RepetitionProgress,
  type RunPayload,
  type RunResult,
  type RunStop,
} from './payload.ts';
import type { ProgressMessage } from './progress.ts';
import type { RunQueue } from './run-queue.ts';
import { explainFailure, viewJob, type JobView } from './status.ts';

export interface RepetitionContext {
  job: Job;
  payload: RunPayload;
  data: RepetitionJobData;
  jobId: string;
  /** A lifecycle line: kept in the job's logs (chaos inspect) and published live. */
  log(line: string): Promise<void>;
  publish(message: ProgressMessage): Promise<void>;
  setProgress(progress: RepetitionProgress): Promise<void>;
  /** Non-null once the user asked to cancel the run. */
  cancelReason(): Promise<string | null>;
}

export interface ScoreContext {
  job: Job;
  payload: RunPayload;
  /** Every repetition job of the run, in run order, whatever its state. */
  repetitions: JobView[];
  log(line: string): Promise<void>;
}

export interface RunHandlers {
  repetition(ctx: RepetitionContext): Promise<RepetitionOutcome>;
  score(ctx: ScoreContext): Promise<RunResult>;
}

const jobIdOfKey = (key: string) => key.slice(key.lastIndexOf(':') + 1);

/** Why this job must not run, judged from the job before it and the cancel flag; null: run it. */
export async function stopBefore(job: Job, rq: RunQueue, runId: string): Promise<RunStop | null> {
  const failures = await job.getIgnoredChildrenFailures();
  for (const [key, reason] of Object.entries(failures)) {
    const id = jobIdOfKey(key);
    return { kind: 'error', reason: `${id} failed: ${explainFailure(reason) ?? 'unknown reason'}`, job_id: id };
  }
  const values = await job.getChildrenValues();
  for (const value of Object.values(values)) {
    const stop = repetitionJobResultSchema.safeParse(value).data?.stop;
    if (stop) return stop;
  }
  const cancel = await rq.cancelReason(runId);
  return cancel === null ? null : { kind: 'cancelled', reason: cancel, job_id: job.id ?? '' };
}

/** Whether this repetition's own outcome ends the run. */
export function stopAfter(outcome: RepetitionOutcome, jobId: string): RunStop | null {
  if (outcome.cancelled) return { kind: 'cancelled', reason: outcome.error ?? 'cancelled by the user', job_id: jobId };
  if (outcome.abort) return { kind: 'aborted', reason: `${outcome.abort.condition}: ${outcome.abort.detail}`, job_id: jobId };
  if (outcome.error) return { kind: 'error', reason: outcome.error, job_id: jobId };
  if (outcome.kind === 'baseline' && outcome.verify_exit_code !== 0) {
    return {
      kind: 'invalid',
      reason: `baseline repetition ${outcome.index} failed verify (exit ${outcome.verify_exit_code ?? 'none'}): the task fails without faults`,
      job_id: jobId,
    };
  }
  return null;
}

export function createRunProcessor(rq: RunQueue, handlers: RunHandlers): Processor {
  const payloads = new Map<string, RunPayload>();
  const payloadOf = async (runId: string) => {
    let payload = payloads.get(runId);
    if (!payload) {
      payload = await rq.getRunPayload(runId);
      payloads.set(runId, payload);
    }
    return payload;
  };

  const processRepetition = async (job: Job): Promise<RepetitionJobResult> => {
    const data = repetitionJobDataSchema.parse(job.data);
    const jobId = repetitionJobId(data.run_id, data.kind, data.index);
    const publish = (message: ProgressMessage) => rq.publish(data.run_id, message).catch(() => undefined);
    const stop = await stopBefore(job, rq, data.run_id);
    if (stop) {
      const reason = `skipped: ${stop.kind === 'invalid' ? 'the run is invalid' : `the run ended (${stop.kind})`} — ${stop.reason}`;
      await job.log(reason);
      await publish({ type: 'repetition_skipped', job_id: jobId, kind: data.kind, index: data.index, reason });
      return { status: 'skipped', outcome: null, stop };
    }
    const payload = await payloadOf(data.run_id);
    await publish({ type: 'repetition_started', job_id: jobId, kind: data.kind, index: data.index, repeat: data.repeat });
    const outcome = await handlers.repetition({
      job,
      payload,
      data,
      jobId,
      log: async (line) => {
        await job.log(`${new Date().toISOString()} ${line}`);
        await publish({ type: 'log', job_id: jobId, line });
      },
      publish,
      setProgress: (progress) => job.updateProgress(progress),
      cancelReason: () => rq.cancelReason(data.run_id),
    });
    await publish({
      type: 'repetition_finished',
      job_id: jobId,
      kind: data.kind,
      index: data.index,
      agent_exit_code: outcome.agent_exit_code,
      verify_exit_code: outcome.verify_exit_code,
      duration_s: outcome.duration_s,
      abort: outcome.abort ? outcome.abort.condition : null,
      error: outcome.error,
    });
    return { status: 'ran', outcome, stop: stopAfter(outcome, jobId) };
  };

  const processScore = async (job: Job): Promise<RunResult> => {
    const payload = runPayloadSchema.parse(job.data);
    const repetitions: JobView[] = [];
    for (const { id, kind, index } of runJobIds(payload.run_id, payload.experiment.repeat)) {
      if (kind !== 'score') repetitions.push(await viewJob(rq, id, kind, index, false));
    }
    const result = await handlers.score({ job, payload, repetitions, log: (line) => job.log(`${new Date().toISOString()} ${line}`).then(() => undefined) });
    await rq.publish(payload.run_id, { type: 'run_finished', verdict: result.verdict, score: result.score, report_path: result.report_path }).catch(() => undefined);
    return result;
  };

  return async (job: Job) => (job.name === JOB_NAMES.score ? processScore(job) : processRepetition(job));
}
