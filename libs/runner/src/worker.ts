// A chaos worker: a BullMQ worker (one job at a time by default) whose repetition jobs run the real
// lifecycle and whose scoring job writes the report. On start, and every SWEEP_MS while it runs, it
// removes what dead workers left (containers, proxies, worktrees). Used by `chaos worker`, by
// `chaos run` in-process when no worker is online, and by docker-compose. When Redis goes away it
// says so once, waits for it and goes on (the queue's reconnect.ts and worker.ts); meanwhile, and for
// a lock's length after, it removes nothing: a lock that ran out while Redis was down is no sign of
// a dead worker until its worker has had the time to take it again.
import type { Worker } from 'bullmq';
import { connectionWatch, createRunProcessor, createRunWorker, redactUrl, RunQueue, WORKER_LOCK_MS, type QueueConfig } from '@intutic/queue';
import { hostGatewayAddress, type Engine } from '@intutic/sandbox';
import type { RepetitionEffects } from './effects.ts';
import { runRepetition, type RunnerDeps } from './repetition.ts';
import { scoreRunJob } from './score-run.ts';
import { writeSuiteReport } from './suite-report.ts';
import { describeSweep, pruneKeptJobs, sweepOrphans } from './sweep.ts';

export const SWEEP_MS = 15_000;

export interface ChaosWorkerOptions {
  config: QueueConfig;
  engine: Engine;
  home: string;
  /** Every effect a repetition has (its proxy, sandbox, workspace, artifacts, clock): the caller wires them. */
  effects: RepetitionEffects;
  env: NodeJS.ProcessEnv;
  version: string;
  concurrency?: number;
  log: (line: string) => void;
  /** Default: INTUTIC_WORKER_NAME or none; shown by `chaos status`. */
  name?: string;
}

export interface ChaosWorker {
  worker: Worker;
  queue: RunQueue;
  close(): Promise<void>;
}

export async function startChaosWorker(options: ChaosWorkerOptions): Promise<ChaosWorker> {
  const watch = connectionWatch(options.config.url, options.log);
  const queue = new RunQueue(options.config, { watch });
  const running = new Set<string>();
  const queueId = { redis: redactUrl(options.config.url), prefix: options.config.prefix };
  const deps: RunnerDeps = {
    ...options.effects,
    gateway: await hostGatewayAddress(options.engine),
    home: options.home,
    env: options.env,
    queue: queueId,
  };
  const sweep = async () => {
    try {
      const spare = (jobId: string) => running.has(jobId) || watch.lost || Date.now() - watch.backAt < WORKER_LOCK_MS * 2;
      const report = await sweepOrphans({ home: options.home, engine: options.engine, cleanup: deps, redis: queue.redis, queue: queueId, spare });
      for (const line of describeSweep(report)) options.log(line);
      for (const jobId of await pruneKeptJobs(options.home)) options.log(`removed ${jobId}'s job directory, kept with --keep for more than 7 days`);
    } catch (error) {
      options.log(`cleanup of dead workers' leftovers failed: ${(error as Error).message}`);
    }
  };
  await sweep();
  const timer = setInterval(() => void sweep(), SWEEP_MS);
  timer.unref();
  const worker = createRunWorker(
    options.config,
    createRunProcessor(queue, {
      repetition: async (ctx) => {
        running.add(ctx.jobId);
        try {
          return await runRepetition(ctx, deps);
        } finally {
          running.delete(ctx.jobId);
        }
      },
      score: (ctx) => scoreRunJob(ctx, { version: options.version, home: options.home }),
      suiteReport: (report) => writeSuiteReport(report, { home: options.home, log: options.log }),
    }),
    { concurrency: options.concurrency ?? 1, watch, ...(options.name ? { name: options.name } : {}) },
  );
  await worker.waitUntilReady();
  // Its first repetition's proxy loads while it waits for work (proxy-standby.ts).
  options.effects.startProxy.warm?.(options.env);
  return {
    worker,
    queue,
    close: async () => {
      clearInterval(timer);
      await worker.close();
      await options.effects.startProxy.close?.();
      await queue.close();
    },
  };
}
