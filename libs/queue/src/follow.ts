// Wait for a run to end by polling its root job: robust where pub/sub is lossy, and the same code
// whether the worker runs in this process, in another one, or on another machine. While Redis is
// away a poll waits for it (the queue says so); stopping to follow does not wait for Redis.
import { runResultSchema, type RunResult } from './payload.ts';
import { scoringJobId } from './names.ts';
import type { RunQueue } from './run-queue.ts';
import { explainFailure } from './status.ts';

export type RunEnd = { state: 'completed'; result: RunResult } | { state: 'failed'; reason: string } | { state: 'missing' } | { state: 'detached' };

export async function waitForRun(rq: RunQueue, runId: string, options: { signal?: AbortSignal; pollMs?: number } = {}): Promise<RunEnd> {
  const pollMs = options.pollMs ?? 500;
  for (;;) {
    if (options.signal?.aborted) return { state: 'detached' };
    const polled = await untilAborted(options.signal, async () => {
      const job = await rq.queue.getJob(scoringJobId(runId));
      return job ? { job, state: await job.getState() } : null;
    });
    if (polled === ABORTED) return { state: 'detached' };
    if (!polled) return { state: 'missing' };
    const { job, state } = polled;
    if (state === 'completed') {
      // The job was read before its state: if it completed in between, the copy has no result yet.
      const parsed = runResultSchema.safeParse(job.returnvalue ?? (await rq.queue.getJob(scoringJobId(runId)))?.returnvalue);
      return parsed.success ? { state: 'completed', result: parsed.data } : { state: 'failed', reason: 'the scoring job returned no result' };
    }
    if (state === 'failed') {
      // As above: a copy read before the job failed has no reason yet.
      const reason = job.failedReason ?? (await rq.queue.getJob(scoringJobId(runId)))?.failedReason;
      return { state: 'failed', reason: explainFailure(reason) ?? 'unknown reason' };
    }
    await new Promise<void>((resolve) => {
      const onAbort = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        options.signal?.removeEventListener('abort', onAbort);
        resolve();
      }, pollMs);
      options.signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

const ABORTED = Symbol('aborted');

/** `work`, or ABORTED as soon as the signal fires (the work is left to finish on its own). */
async function untilAborted<T>(signal: AbortSignal | undefined, work: () => Promise<T>): Promise<T | typeof ABORTED> {
  if (!signal) return work();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<typeof ABORTED>((resolve) => {
    onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work(), aborted]);
  } finally {
    if (onAbort) signal.removeEventListener('abort', onAbort);
  }
}
