// The one processor every worker runs. It knows the flow's semantics and nothing about sandboxes:
// a repetition job first looks at the job before it in the chain (its only child) and at the run's
// cancel flag, and skips when the run has already stopped — aborted, invalid, cancelled, or an
// earlier job failed — otherwise it hands the repetition to the runner. The scoring job gets every
// repetition's state. Agent failure, verify failure and an injected fault are results, not failures.
// --parallel: a repetition that stops the run records the stop in Redis, so its running siblings
// are stopped (through cancelReason) and the queued ones skip; the phase gate is processPhase.
// A repetition whose job this worker lost (worker.ts) is stopped the same way, through its signal.
import type { Job, Processor } from 'bullmq';
import { repetitionChild } from './flow.ts';
import { JOB_NAMES, repetitionJobId, runJobIds, scoringJobId } from './names.ts';
import {
  phaseJobDataSchema,
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
import { SUITE_JOB_NAME } from './suite-flow.ts';
import { chargeSuiteCost, processSuite, type WriteSuiteReport } from './suite-process.ts';

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
  /** What ended the run early (from the job under the scoring job), or null. */
  stop: RunStop | null;
  log(line: string): Promise<void>;
}

export interface RunHandlers {
  repetition(ctx: RepetitionContext): Promise<RepetitionOutcome>;
  score(ctx: ScoreContext): Promise<RunResult>;
  /** Writes a suite's report once its cells have ended (suite-process.ts). */
  suiteReport?: WriteSuiteReport;
}

const jobIdOfKey = (key: string) => key.slice(key.lastIndexOf(':') + 1);

/** Why this job must not run, judged from the job before it and the cancel flag; null: run it. */
export async function stopBefore(job: Job, rq: RunQueue, runId: string): Promise<RunStop | null> {
  // --parallel: the first stop of the run wins over its siblings' later ones (stopped because of it).
  const recorded = await rq.recordedStop(runId);
  if (recorded) return recorded;
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
  const processing: RunProcessing = { rq, handlers, payloadOf: cachedPayloads(rq) };
  return async (job: Job, _token?: string, signal?: AbortSignal) => {
    if (job.name === JOB_NAMES.score) return processScore(processing, job);
    if (job.name === JOB_NAMES.phase) return processPhase(processing, job);
    if (job.name === SUITE_JOB_NAME) return processSuite(rq, job, handlers.suiteReport);
    return processRepetition(processing, job, signal);
  };
}

/** What a worker's jobs share: the queue, the handlers, and the run payloads it has read so far. */
interface RunProcessing {
  rq: RunQueue;
  handlers: RunHandlers;
  payloadOf(runId: string): Promise<RunPayload>;
}

type Publish = (message: ProgressMessage) => Promise<void>;

/** Each run's payload, read from Redis the first time one of its jobs needs it. */
function cachedPayloads(rq: RunQueue): (runId: string) => Promise<RunPayload> {
  const payloads = new Map<string, RunPayload>();
  return async (runId) => {
    let payload = payloads.get(runId);
    if (!payload) {
      payload = await rq.getRunPayload(runId);
      payloads.set(runId, payload);
    }
    return payload;
  };
}

/** Progress is best effort: a message Redis does not take is dropped, never a job's failure. */
const publisherOf =
  (rq: RunQueue, runId: string): Publish =>
  (message) =>
    rq.publish(runId, message).catch(() => undefined);

const skipReason = (stop: RunStop) => `skipped: ${stop.kind === 'invalid' ? 'the run is invalid' : `the run ended (${stop.kind})`} — ${stop.reason}`;

/** How often a running repetition's progress says its worker is alive. */
export const ALIVE_EVERY_MS = 1_000;

/**
 * The repetition's progress with its real start and the worker's last sign of life: what status and
 * inspect show for a job whose worker died ("ran 67 s, then its worker died"), since BullMQ rewrites
 * the job's own start when the stalled job is failed. Best effort, like every progress write.
 */
function lifeSigns(job: Job): { set: (progress: RepetitionProgress) => Promise<void>; stop: () => void } {
  const started_at = Date.now();
  let last: RepetitionProgress | null = null;
  const timer = setInterval(() => void (last && job.updateProgress({ ...last, alive_at: Date.now() }).catch(() => undefined)), ALIVE_EVERY_MS);
  timer.unref();
  return {
    set: async (progress) => {
      last = { ...progress, started_at };
      await job.updateProgress({ ...last, alive_at: Date.now() });
    },
    stop: () => clearInterval(timer),
  };
}

// `signal`: fired when this worker lost the job (worker.ts): the repetition stops at once.
async function processRepetition(processing: RunProcessing, job: Job, signal?: AbortSignal): Promise<RepetitionJobResult> {
  const { rq, handlers } = processing;
  const data = repetitionJobDataSchema.parse(job.data);
  const jobId = repetitionJobId(data.run_id, data.kind, data.index);
  const publish = publisherOf(rq, data.run_id);
  const stop = await stopBefore(job, rq, data.run_id);
  if (stop) {
    const reason = skipReason(stop);
    await job.log(reason);
    await publish({ type: 'repetition_skipped', job_id: jobId, kind: data.kind, index: data.index, reason });
    return { status: 'skipped', outcome: null, stop };
  }
  const payload = await processing.payloadOf(data.run_id);
  await publish({ type: 'repetition_started', job_id: jobId, kind: data.kind, index: data.index, repeat: data.repeat });
  const life = lifeSigns(job);
  const outcome = await handlers
    .repetition({
      job,
      payload,
      data,
      jobId,
      log: async (line) => {
        await job.log(`${new Date().toISOString()} ${line}`);
        await publish({ type: 'log', job_id: jobId, line });
      },
      publish,
      setProgress: life.set,
      cancelReason: () => repetitionCancelReason(rq, data.run_id, payload.parallel, signal),
    })
    .finally(life.stop);
  await publish(finishedMessage(jobId, data, outcome));
  const after = stopAfter(outcome, jobId);
  if (after && payload.parallel) await rq.recordStop(data.run_id, after);
  return { status: 'ran', outcome, stop: after };
}

/** Why a running repetition must stop: this worker lost its job, the user cancelled, or (--parallel) a sibling stopped the run. */
async function repetitionCancelReason(rq: RunQueue, runId: string, parallel: boolean | undefined, signal?: AbortSignal): Promise<string | null> {
  if (signal?.aborted) return String(signal.reason ?? 'this worker lost the job');
  // While Redis is away the question waits for it; the abort monitor asking it must go on
  // reading the events meanwhile, so no answer in time counts as "go on".
  return answerWithin(CANCEL_ANSWER_MS, null, async () => {
    const cancel = await rq.cancelReason(runId);
    if (cancel !== null || !parallel) return cancel;
    const stop = await rq.recordedStop(runId);
    return stop ? `the run ended (${stop.kind}) in another repetition: ${stop.reason}` : null;
  });
}

function finishedMessage(jobId: string, data: RepetitionJobData, outcome: RepetitionOutcome): ProgressMessage {
  return {
    type: 'repetition_finished',
    job_id: jobId,
    kind: data.kind,
    index: data.index,
    agent_exit_code: outcome.agent_exit_code,
    verify_exit_code: outcome.verify_exit_code,
    duration_s: outcome.duration_s,
    abort: outcome.abort ? outcome.abort.condition : null,
    error: outcome.error,
  };
}

// --parallel: the faulted phase's gate, run once every baseline is done. Unless the run stopped it
// adds the faulted repetitions as further children of the scoring job (still waiting for its
// children), so they exist only now and scoring waits for them too. One pass: a job is never
// started twice (maxStartedAttempts 1), so the gate does not wait for them itself.
async function processPhase(processing: RunProcessing, job: Job): Promise<RepetitionJobResult> {
  const { rq } = processing;
  const data = phaseJobDataSchema.parse(job.data);
  const publish = publisherOf(rq, data.run_id);
  const stop = await stopBefore(job, rq, data.run_id);
  if (stop) {
    const reason = skipReason(stop);
    await job.log(reason);
    for (let index = 1; index <= data.repeat; index++) {
      await publish({ type: 'repetition_skipped', job_id: repetitionJobId(data.run_id, 'faulted', index), kind: 'faulted', index, reason });
    }
    return { status: 'skipped', outcome: null, stop };
  }
  const payload = await processing.payloadOf(data.run_id);
  const parent = { id: scoringJobId(data.run_id), queue: job.parent?.queueKey ?? job.queueQualifiedName };
  const priority = job.opts.priority ?? 1;
  // All at once: a gate whose worker dies half-way must not leave half a phase behind.
  await rq.addChildren(
    parent,
    Array.from({ length: data.repeat }, (_, i) => repetitionChild(payload, 'faulted', i + 1, priority, job.queueName)),
  );
  await job.log(`baseline phase done: ${data.repeat} faulted repetition(s) queued`);
  return { status: 'ran', outcome: null, stop: null };
}

async function processScore({ rq, handlers }: RunProcessing, job: Job): Promise<RunResult> {
  const payload = runPayloadSchema.parse(job.data);
  const repetitions: JobView[] = [];
  for (const { id, kind, index } of runJobIds(payload.run_id, payload.experiment.repeat, { parallel: payload.parallel })) {
    if (kind === 'baseline' || kind === 'faulted') repetitions.push(await viewJob(rq, id, kind, index, false));
  }
  const stop = await stopBefore(job, rq, payload.run_id);
  const result = await handlers.score({
    job,
    payload,
    repetitions,
    stop,
    log: (line) => job.log(`${new Date().toISOString()} ${line}`).then(() => undefined),
  });
  await chargeSuiteCost(rq, payload, result);
  await rq
    .publish(payload.run_id, { type: 'run_finished', verdict: result.verdict, score: result.score, report_path: result.report_path })
    .catch(() => undefined);
  return result;
}

/** How long a cancel check may wait for Redis before the repetition goes on without its answer. */
const CANCEL_ANSWER_MS = 750;

async function answerWithin<T>(ms: number, fallback: T, ask: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  try {
    return await Promise.race([ask(), late]);
  } finally {
    clearTimeout(timer);
  }
}
