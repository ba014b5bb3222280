// A chaos worker: a BullMQ worker (one job at a time by default) whose repetition jobs run the real
// lifecycle and whose scoring job writes the report. On start, and every SWEEP_MS while it runs, it
// removes what dead workers left (containers, proxies, worktrees). Used by `chaos worker`, by
// `chaos run` in-process when no worker is online, and by docker-compose.
import type { Worker } from 'bullmq';
import { createRunProcessor, createRunWorker, redactUrl, RunQueue, type QueueConfig } from '@intutic/queue';
import { hostGatewayAddress, type Engine } from '@intutic/sandbox';
import { runRepetition, type RunnerDeps } from './repetition.ts';
import { scoreRunJob } from './score-run.ts';
import { describeSweep, sweepOrphans } from './sweep.ts';

export const SWEEP_MS = 15_000;

export interface ChaosWorkerOptions {
  config: QueueConfig;
  engine: Engine;
  home: string;
  intuticCommand: readonly string[];
  proxyExtraArgs?: readonly string[];
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
  const queue = new RunQueue(options.config);
  const queueId = { redis: redactUrl(options.config.url), prefix: options.config.prefix };
  const deps: RunnerDeps = {
    engine: options.engine,
    gateway: await hostGatewayAddress(options.engine),
    home: options.home,
    intuticCommand: options.intuticCommand,
    ...(options.proxyExtraArgs ? { proxyExtraArgs: options.proxyExtraArgs } : {}),
    env: options.env,
    queue: queueId,
  };
  const sweep = async () => {
    try {
      const report = await sweepOrphans({ home: options.home, engine: options.engine, redis: queue.redis, queue: queueId });
      for (const line of describeSweep(report)) options.log(line);
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
      repetition: (ctx) => runRepetition(ctx, deps),
      score: (ctx) => scoreRunJob(ctx, { version: options.version, home: options.home }),
    }),
    { concurrency: options.concurrency ?? 1, ...(options.name ? { name: options.name } : {}) },
  );
  worker.on('error', (error) => options.log(`worker error: ${error.message}`));
  await worker.waitUntilReady();
  return {
    worker,
    queue,
    close: async () => {
      clearInterval(timer);
      await worker.close();
      await queue.close();
    },
  };
}
