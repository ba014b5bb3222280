// What a follower who joins late has missed: the progress messages a run's jobs recorded so far,
// rebuilt from the job states and logs in Redis (pub/sub keeps nothing). Agent output is not
// among them: it lives in each repetition's artifacts, not in Redis.
import { getRun, ranFor, type JobView } from './status.ts';
import type { ProgressMessage } from './progress.ts';
import type { RunQueue } from './run-queue.ts';
import type { RunPayload } from './payload.ts';

/** A job log line starts with the time it was written (processor.ts); the live message has none. */
const stamp = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z /;
export const logLineOf = (logged: string) => logged.replace(stamp, '');

export async function recordedProgress(rq: RunQueue, runId: string): Promise<{ payload: RunPayload; messages: ProgressMessage[] }> {
  const run = await getRun(rq, runId, { logs: true });
  const repeat = run.payload.experiment.repeat;
  const messages: ProgressMessage[] = [];
  for (const job of run.jobs) {
    if (job.kind !== 'baseline' && job.kind !== 'faulted') continue;
    messages.push(...jobMessages(job, job.kind, repeat));
  }
  return { payload: run.payload, messages };
}

function jobMessages(job: JobView, kind: 'baseline' | 'faulted', repeat: number): ProgressMessage[] {
  const base = { job_id: job.id, kind, index: job.index };
  if (job.result?.status === 'skipped') return [{ type: 'repetition_skipped', ...base, reason: logLineOf(job.logs[0] ?? 'skipped') }];
  if (job.started_at === null) return [];
  const out: ProgressMessage[] = [{ type: 'repetition_started', ...base, repeat }];
  for (const line of job.logs) out.push({ type: 'log', job_id: job.id, line: logLineOf(line) });
  const outcome = job.result?.outcome;
  if (outcome) {
    out.push({
      type: 'repetition_finished',
      ...base,
      agent_exit_code: outcome.agent_exit_code,
      verify_exit_code: outcome.verify_exit_code,
      duration_s: outcome.duration_s,
      abort: outcome.abort ? outcome.abort.condition : null,
      error: outcome.error,
    });
  } else if (job.state === 'failed') {
    out.push(failedClosing(job, kind));
  }
  return out;
}

/**
 * The closing line of a repetition that failed without an outcome (its worker died and a later one
 * failed it as stalled): no live message ever says it, so followers and late followers build it here.
 */
export function failedClosing(job: JobView, kind: 'baseline' | 'faulted'): ProgressMessage {
  return {
    type: 'repetition_finished',
    job_id: job.id,
    kind,
    index: job.index,
    agent_exit_code: null,
    verify_exit_code: null,
    duration_s: (ranFor(job) ?? 0) / 1000,
    abort: null,
    error: job.failed_reason ?? 'failed',
  };
}
