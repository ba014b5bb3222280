// The stalled check of a watched worker, in our hands rather than BullMQ's timer. BullMQ's check
// fails an active job whose lock is gone; after Redis was away for longer than a lock lasts, this
// worker's own jobs are such jobs until it renews their locks. BullMQ's timer would race that
// renewal (a check queued during the outage runs first when Redis is back), so the same outage
// would end the job on one run and keep it on the next. Here the check waits while Redis is away
// and until the renewal that follows its return has finished: a worker never fails its own job as
// stalled, while a job whose worker stays cut off is still failed by any other worker's check.
import type { Worker } from 'bullmq';
import type { ConnectionWatch } from './reconnect.ts';

/** BullMQ's check itself: public in JavaScript, private in its typings. */
interface StalledCheck {
  moveStalledJobsToWait(): Promise<void>;
}

export interface StalledChecker {
  /** Hold every check until `renewal` has settled (the locks this worker holds, renewed after an outage). */
  holdUntil(renewal: Promise<unknown>): void;
}

export function checkStalledJobs(worker: Worker, watch: ConnectionWatch, intervalMs: number): StalledChecker {
  let renewal: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const check = async () => {
    if (watch.lost) return;
    await renewal;
    if (watch.lost || stopped) return;
    await (worker as unknown as StalledCheck).moveStalledJobsToWait();
  };
  // At once, as BullMQ does (a new worker finds a dead one's job soon), then every interval.
  const loop = () => {
    void check()
      .catch((error) => watch.error(error, 'could not check for stalled jobs: '))
      .finally(() => {
        if (!stopped) timer = setTimeout(loop, intervalMs);
      });
  };
  worker.once('closing', () => {
    stopped = true;
    clearTimeout(timer);
  });
  loop();
  return {
    holdUntil(next) {
      renewal = next.catch(() => undefined);
    },
  };
}
