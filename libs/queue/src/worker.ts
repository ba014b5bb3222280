// A BullMQ worker configured for runs: one job at a time by default, a short lock so a dead worker's
// job is noticed within seconds, and no second start — a stalled job (its worker died) is failed
// with that reason the first time it stalls, never re-run (maxStalledCount 0, maxStartedAttempts 1).
import { Worker, type Processor } from 'bullmq';
import { redisOptionsFromUrl, type QueueConfig } from './connection.ts';
import { QUEUE_NAME } from './names.ts';

export const WORKER_LOCK_MS = 10_000;
export const STALLED_CHECK_MS = 5_000;

export function createRunWorker(config: QueueConfig, processor: Processor, options: { concurrency?: number; name?: string; autorun?: boolean } = {}): Worker {
  return new Worker(QUEUE_NAME, processor, {
    connection: redisOptionsFromUrl(config.url),
    prefix: config.prefix,
    concurrency: options.concurrency ?? 1,
    lockDuration: WORKER_LOCK_MS,
    stalledInterval: STALLED_CHECK_MS,
    maxStalledCount: 0,
    maxStartedAttempts: 1,
    autorun: options.autorun ?? true,
    ...(options.name ? { name: options.name } : {}),
  });
}
