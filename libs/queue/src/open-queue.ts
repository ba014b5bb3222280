// Opening the run queue, the two ways commands need it. `chaos run` and `chaos worker` connect to
// run it: a Redis is started for the user when none is configured or running. `chaos status` and
// `chaos inspect` only read it: nothing is started, and they fail fast when no Redis answers.
import type Dockerode from 'dockerode';
import { connectRedisForReads, isConnectionLost, queueConfigFromEnv, redisUnavailable, type QueueConfig } from './connection.ts';
import { redisAnswers } from './probe.ts';
import { ensureRedis, type RedisStart } from './local-redis.ts';
import { connectionWatch } from './reconnect.ts';
import { RunQueue } from './run-queue.ts';

export async function connectRunQueue(options: {
  env: NodeJS.ProcessEnv;
  home: string;
  engine: { docker: Dockerode } | null;
  log: (line: string) => void;
}): Promise<{ queue: RunQueue; config: QueueConfig; started: RedisStart }> {
  const { configured, ...config } = queueConfigFromEnv(options.env);
  const started = await ensureRedis({
    url: config.url,
    configured,
    home: options.home,
    docker: options.engine?.docker ?? null,
    env: options.env,
    log: options.log,
  });
  // The queue says when it loses Redis and when it is back, on the same log as the worker.
  return { queue: new RunQueue(config, { watch: connectionWatch(config.url, options.log) }), config, started };
}

/** The queue as it is, for commands that only read it: never starts a Redis, fails fast without one. */
export async function openExistingQueue(env: NodeJS.ProcessEnv): Promise<RunQueue> {
  return new RunQueue(await existingQueueConfig(env));
}

/** The queue's config, once a Redis answers there: runs are only read, so none is started. */
async function existingQueueConfig(env: NodeJS.ProcessEnv): Promise<QueueConfig> {
  const { configured, ...config } = queueConfigFromEnv(env);
  if (!(await redisAnswers(config.url))) {
    throw redisUnavailable(config.url, configured ? [] : ['No Redis is running, so there are no runs to show.']);
  }
  return config;
}

/**
 * One look at the runs Redis holds (`chaos status`, `chaos inspect`), the queue closed afterwards.
 * Unlike a followed run, a look does not wait for a Redis that goes away partway: it fails with
 * E_REDIS_UNAVAILABLE within about a second. (A Redis that keeps the connection open and answers
 * nothing, a stopped process, is still waited for.)
 */
export async function readExistingQueue<T>(env: NodeJS.ProcessEnv, read: (queue: RunQueue) => Promise<T>): Promise<T> {
  const config = await existingQueueConfig(env);
  const queue = new RunQueue(config, { redis: connectRedisForReads(config.url) });
  try {
    return await read(queue);
  } catch (error) {
    if (isConnectionLost(error)) throw redisUnavailable(config.url, ['Redis went away while the runs were being read; try again once it answers.']);
    throw error;
  } finally {
    await queue.close();
  }
}
