// A BullMQ worker configured for runs: one job at a time by default, a short lock so a dead worker's
// job is noticed within seconds, and no second start — a stalled job (its worker died) is failed
// with that reason the first time it stalls, never re-run (maxStalledCount 0, maxStartedAttempts 1).
//
// A Redis restart is waited out (reconnect.ts). What it can take is a job's lock: Redis expires keys
// by the wall clock, so a lock can run out while Redis is down. The lock is renewed every 2 s (8 s or
// more left at any time), and on every reconnect the locks this worker holds are renewed at once —
// taken again when one ran out but its job is still active. A job that was taken as stalled in
// between is lost to this worker: its processor is told through its signal (the repetition stops,
// never to be re-run) and the job's failure says why instead of "its worker died". The stalled check
// waits for that renewal (stalled.ts): a worker never takes its own job as stalled.
import { Worker, type Job, type Processor } from 'bullmq';
import { Cluster } from 'ioredis';
import { checkQueueConfig, workerConnection, type QueueConfig, type RedisConnection } from './connection.ts';
import { QUEUE_NAME } from './names.ts';
import type { ConnectionWatch } from './reconnect.ts';
import { checkStalledJobs } from './stalled.ts';
import { STALLED_REASON } from './status.ts';

export const WORKER_LOCK_MS = 10_000;
export const LOCK_RENEW_MS = 2_000;
export const STALLED_CHECK_MS = 5_000;

export const LOST_LOCK_REASON = `its worker was cut off from Redis for longer than the job's lock (${WORKER_LOCK_MS / 1000} s), so the job was taken from it as stalled and stopped; it is never re-run`;

// KEYS: the job's lock, the stalled set, the active list. ARGV: token, lock ms, job id.
// 1: still ours, renewed; 2: it had run out, taken again; 0: lost (the job is no longer active).
const RETAKE_LOCK = `
local current = redis.call('GET', KEYS[1])
local function take(result)
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  redis.call('SREM', KEYS[2], ARGV[3])
  return result
end
if current == ARGV[1] then return take(1) end
if current then return 0 end
for _, id in ipairs(redis.call('LRANGE', KEYS[3], 0, -1)) do
  if id == ARGV[3] then return take(2) end
end
return 0`;

// KEYS: the job's hash. ARGV: BullMQ's stalled reason, ours. The stalled check leaves the reason as
// a deferred failure (field defa) for the next worker to apply; once applied it is failedReason, and
// the parent (ignoreDependencyOnFailure) keeps a copy of it under <parent>:failed.
const EXPLAIN_LOST = `
if redis.call('HGET', KEYS[1], 'defa') == ARGV[1] then redis.call('HSET', KEYS[1], 'defa', ARGV[2]) end
if redis.call('HGET', KEYS[1], 'failedReason') == ARGV[1] then redis.call('HSET', KEYS[1], 'failedReason', ARGV[2]) end
local parent = redis.call('HGET', KEYS[1], 'parentKey')
if parent and redis.call('HGET', parent .. ':failed', KEYS[1]) == ARGV[1] then redis.call('HSET', parent .. ':failed', KEYS[1], ARGV[2]) end
return 1`;

export interface RunWorkerOptions {
  concurrency?: number;
  name?: string;
  autorun?: boolean;
  /** Says once when Redis is lost and back; with it, every other worker error goes to its log. */
  watch?: ConnectionWatch;
}

export function createRunWorker(config: QueueConfig, processor: Processor, options: RunWorkerOptions = {}): Worker {
  checkQueueConfig(config);
  /** The jobs this worker is processing, by id: their lock tokens. */
  const held = new Map<string, string>();
  const lost = new Set<string>();
  // Three parameters: BullMQ then gives each job an AbortSignal, which cancelJob() fires.
  const run = async (job: Job, token?: string, signal?: AbortSignal): Promise<unknown> => {
    if (job.id && token) held.set(job.id, token);
    try {
      return await processor(job, token, signal);
    } finally {
      if (job.id) held.delete(job.id);
    }
  };
  const connection = workerConnection(config);
  const worker = new Worker(QUEUE_NAME, run, {
    connection,
    prefix: config.prefix,
    concurrency: options.concurrency ?? 1,
    lockDuration: WORKER_LOCK_MS,
    lockRenewTime: LOCK_RENEW_MS,
    stalledInterval: STALLED_CHECK_MS,
    maxStalledCount: 0,
    maxStartedAttempts: 1,
    // With a watch, the stalled check is ours (below), so that it never races the renewal.
    skipStalledCheck: options.watch !== undefined,
    autorun: options.autorun ?? true,
    ...(options.name ? { name: options.name } : {}),
  });
  // BullMQ closes the connections it made (its blocking one is a copy); the cluster client it was given is closed with it.
  if (connection instanceof Cluster) worker.once('closed', () => connection.disconnect());
  const watch = options.watch;
  if (!watch) return worker;

  const say = (line: string) => watch.say(line);
  const retakeNow = async (jobIds: string[]) => {
    // BullMQ wraps its ioredis client in a proxy that passes every command on.
    const client = (await worker.client) as unknown as RedisConnection;
    for (const jobId of jobIds) {
      const token = held.get(jobId);
      if (!token || lost.has(jobId)) continue;
      const keys = [`${worker.toKey(jobId)}:lock`, worker.keys.stalled!, worker.keys.active!];
      const result = Number(await client.eval(RETAKE_LOCK, keys.length, ...keys, token, WORKER_LOCK_MS, jobId));
      if (result === 2) say(`${jobId}: its lock ran out while Redis was away; it is still active, so this worker took it again`);
      if (result !== 0) continue;
      lost.add(jobId);
      say(`lost ${jobId}: ${LOST_LOCK_REASON}`);
      await client.eval(EXPLAIN_LOST, 1, worker.toKey(jobId), STALLED_REASON, LOST_LOCK_REASON);
      worker.cancelJob(jobId, LOST_LOCK_REASON);
    }
  };
  // One at a time (a reconnect and BullMQ's failed renewal both ask): each job is taken back or lost once.
  let retaking: Promise<void> = Promise.resolve();
  const retake = (jobIds: string[]) => (retaking = retaking.catch(() => undefined).then(() => retakeNow(jobIds)));
  const stalled = checkStalledJobs(worker, watch, STALLED_CHECK_MS);
  const retakeHeld = () => stalled.holdUntil(retake([...held.keys()]).catch((error) => watch.error(error, 'could not renew the job locks: ')));
  void worker.client.then(
    (client) => watch.watch(client, retakeHeld),
    () => undefined,
  );
  worker.on('lockRenewalFailed', (jobIds: string[]) => void retake(jobIds).catch((error) => watch.error(error, 'could not renew the job locks: ')));
  worker.on('error', (error) => {
    // Said above, once per job: BullMQ's own words for it, and its failed attempts to finish a lost job.
    if (/^could not renew lock for job /.test(error.message)) return;
    const missing = /^Missing lock for job (\S+?)\.? /.exec(error.message);
    if (missing && lost.has(missing[1]!)) return;
    watch.error(error, 'worker error: ');
  });
  return worker;
}
