// The run as a BullMQ flow, built as plain data (pure, no Redis). A parent runs only after its
// children, so the flow is one chain: the scoring job is the root, under it the last faulted
// repetition, under that the one before … down to the first baseline repetition, the deepest leaf.
// That makes the phases strict (every baseline before any faulted one, scoring last) and keeps one
// run to one repetition at a time even with several workers.
//
// Failure propagation is explicit: every child has ignoreDependencyOnFailure, so a failed
// repetition (a runner error, or a stalled job whose worker died) releases its parent instead of
// leaving it waiting forever; the parent sees the failure and skips, up to the scoring job, which
// still writes the report. attempts: 1 everywhere — a repetition spends real money and is never
// retried silently.
//
// --parallel: score ← the faulted phase's gate ← every baseline repetition (siblings, so several
// workers take them at once). The gate runs only once all baselines are done; unless one stopped
// the run it then adds the faulted repetitions as further children of the scoring job, which is
// still waiting for its children: no faulted repetition exists before the baseline phase has
// finished, and scoring runs after the last of them.
import type { FlowChildJob, FlowJob, JobsOptions } from 'bullmq';
import { JOB_NAMES, phaseJobId, QUEUE_NAME, repetitionJobId, scoringJobId, type RepetitionKind } from './names.ts';
import type { PhaseJobData, RepetitionJobData, RunPayload } from './payload.ts';

/** Keep finished jobs a while so `chaos status` and `chaos inspect` can show them. */
const KEEP_FINISHED = { age: 30 * 24 * 3600, count: 5000 };

export function jobOptions(jobId: string, priority: number): JobsOptions {
  return {
    jobId,
    priority,
    attempts: 1,
    removeOnComplete: KEEP_FINISHED,
    removeOnFail: KEEP_FINISHED,
    keepLogs: 2000,
  };
}

export function childOptions(jobId: string, priority: number): FlowChildJob['opts'] & JobsOptions {
  return { ...jobOptions(jobId, priority), ignoreDependencyOnFailure: true };
}

/** The repetitions in the order they run. */
export function repetitionOrder(repeat: number): { kind: RepetitionKind; index: number }[] {
  const order: { kind: RepetitionKind; index: number }[] = [];
  for (const kind of ['baseline', 'faulted'] as const) for (let index = 1; index <= repeat; index++) order.push({ kind, index });
  return order;
}

/**
 * The flow of one run. `priority` (≥ 1, lower first) orders runs: one worker finishes the run it
 * started before it takes the next run's first repetition.
 */
export function buildRunFlow(payload: RunPayload, options: { priority: number; queueName?: string }): FlowJob {
  const queueName = options.queueName ?? QUEUE_NAME;
  const repeat = payload.experiment.repeat;
  if (payload.parallel) return buildParallelFlow(payload, queueName, options.priority);
  let child: FlowChildJob | undefined;
  for (const { kind, index } of repetitionOrder(repeat)) {
    const id = repetitionJobId(payload.run_id, kind, index);
    const data: RepetitionJobData = { run_id: payload.run_id, kind, index, repeat };
    const node: FlowChildJob = { name: JOB_NAMES.repetition, queueName, data, opts: childOptions(id, options.priority) };
    if (child) node.children = [child];
    child = node;
  }
  return {
    name: JOB_NAMES.score,
    queueName,
    data: payload,
    opts: jobOptions(scoringJobId(payload.run_id), options.priority),
    ...(child ? { children: [child] } : {}),
  };
}

/** A repetition job as a child (the flow's, or added later under the faulted phase's gate). */
export function repetitionChild(payload: RunPayload, kind: RepetitionKind, index: number, priority: number, queueName = QUEUE_NAME): FlowChildJob {
  const data: RepetitionJobData = { run_id: payload.run_id, kind, index, repeat: payload.experiment.repeat };
  return { name: JOB_NAMES.repetition, queueName, data, opts: childOptions(repetitionJobId(payload.run_id, kind, index), priority) };
}

function buildParallelFlow(payload: RunPayload, queueName: string, priority: number): FlowJob {
  const repeat = payload.experiment.repeat;
  const gateData: PhaseJobData = { run_id: payload.run_id, kind: 'faulted', repeat };
  const baselines = repetitionOrder(repeat)
    .filter((r) => r.kind === 'baseline')
    .map((r) => repetitionChild(payload, r.kind, r.index, priority, queueName));
  const gate: FlowChildJob = {
    name: JOB_NAMES.phase,
    queueName,
    data: gateData,
    opts: childOptions(phaseJobId(payload.run_id, 'faulted'), priority),
    children: baselines,
  };
  return { name: JOB_NAMES.score, queueName, data: payload, opts: jobOptions(scoringJobId(payload.run_id), priority), children: [gate] };
}
