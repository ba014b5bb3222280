// Observing a run's events files, in parallel where it pays. Each repetition's file is independent
// of the others, and parsing JSON is most of the cost of scoring a long run, so files are spread over
// threads (one per core, at most MAX_THREADS) when there are several and they are big enough for the
// threads' start-up (tens of ms) to be worth it. A thread that cannot start or dies leaves its file
// to be observed inline: threads make scoring faster, never different.
import { existsSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Experiment } from '@intutic/experiment';
import { observeEvents, type Observation } from './observe-events.ts';
import type { ObserveRequest } from './observe-worker.ts';

export { observeEvents, type Observation } from './observe-events.ts';

const MAX_THREADS = 8;
/** Below this many bytes in all, one thread is as fast as several. */
const PARALLEL_MIN_BYTES = 8 * 1024 * 1024;

export interface ObserveOptions {
  /** Threads to use; default one per core. 1 observes inline. */
  threads?: number;
  /** Observe inline when the files hold fewer bytes than this in all. */
  minParallelBytes?: number;
}

export interface ObservedRun {
  /** In the order of the paths given. */
  observations: Observation[];
  /** Threads that observed files; 0 when everything was observed inline. */
  threads: number;
}

/**
 * The observation thread's bundle (scripts/build.mjs writes libs/runner/dist/). This module runs
 * from its source (tests, tsx) or bundled into the CLI at apps/cli/dist/: both places are looked at.
 */
export function observeWorkerPath(): string | null {
  const candidates = [
    fileURLToPath(new URL('../dist/observe-worker.mjs', import.meta.url)),
    fileURLToPath(new URL('../../../libs/runner/dist/observe-worker.mjs', import.meta.url)),
  ];
  return candidates.find((p) => existsSync(p)) ?? null;
}

const sizeOf = (path: string): number => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

export async function observeAll(paths: readonly string[], experiment: Experiment, options: ObserveOptions = {}): Promise<ObservedRun> {
  const workerFile = observeWorkerPath();
  const wanted = Math.min(options.threads ?? availableParallelism(), MAX_THREADS, paths.length);
  const bytes = paths.reduce((sum, p) => sum + sizeOf(p), 0);
  if (workerFile === null || wanted < 2 || bytes < (options.minParallelBytes ?? PARALLEL_MIN_BYTES)) {
    const observations: Observation[] = [];
    for (const path of paths) observations.push(await observeEvents(path, experiment));
    return { observations, threads: 0 };
  }
  return observeInThreads(workerFile, paths, experiment, wanted);
}

type Reply = { id: number; observation: Observation } | { id: number; error: string };

async function observeInThreads(workerFile: string, paths: readonly string[], experiment: Experiment, count: number): Promise<ObservedRun> {
  const observations = new Array<Observation | undefined>(paths.length);
  let next = 0;
  let used = 0;
  const failures: Error[] = [];

  const runThread = (): Promise<void> =>
    new Promise((resolve) => {
      const worker = new Worker(workerFile);
      let observed = 0;
      const take = (): void => {
        if (next >= paths.length) {
          void worker.terminate();
          return;
        }
        const id = next++;
        worker.postMessage({ id, path: paths[id]!, experiment } satisfies ObserveRequest);
      };
      worker.on('message', (reply: Reply) => {
        if ('error' in reply) failures.push(new Error(reply.error));
        else observations[reply.id] = reply.observation;
        observed++;
        take();
      });
      worker.once('online', take);
      // A thread that fails to start or dies: its current file goes back to be observed inline.
      worker.once('error', () => void worker.terminate());
      worker.once('exit', () => {
        if (observed > 0) used++;
        resolve();
      });
    });

  await Promise.all(Array.from({ length: count }, runThread));
  if (failures.length > 0) throw failures[0]!;
  for (let i = 0; i < paths.length; i++) observations[i] ??= await observeEvents(paths[i]!, experiment);
  return { observations: observations as Observation[], threads: used };
}
