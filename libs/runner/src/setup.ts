// What `chaos run` and `chaos worker` both need before they can do anything: a Redis (started for
// the user when none is configured or running), the command that runs this CLI (the proxy is
// `intutic start`), and the proxy's extra arguments for scripted upstreams.
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IntuticError } from '@intutic/errors';
import { connectionWatch, connectRedisForReads, ensureRedis, isConnectionLost, pingRedis, queueConfigFromEnv, redisUnavailable, RunQueue, type QueueConfig, type RedisStart } from '@intutic/queue';
import type { Engine } from '@intutic/sandbox';

export async function connectRunQueue(options: { env: NodeJS.ProcessEnv; home: string; engine: Engine | null; log: (line: string) => void }): Promise<{ queue: RunQueue; config: QueueConfig; started: RedisStart }> {
  const { configured, ...config } = queueConfigFromEnv(options.env);
  const started = await ensureRedis({ url: config.url, configured, home: options.home, docker: options.engine?.docker ?? null, env: options.env, log: options.log });
  // The queue says when it loses Redis and when it is back, on the same log as the worker.
  return { queue: new RunQueue(config, { watch: connectionWatch(config.url, options.log) }), config, started };
}

/**
 * The argv prefix that runs this intutic CLI: INTUTIC_CLI_COMMAND (a JSON array) when set, else this
 * process's own script when it is the intutic bin or bundle, else the bin found above this module.
 */
export function resolveIntuticCommand(env: NodeJS.ProcessEnv, argv: readonly string[] = process.argv, moduleUrl: string = import.meta.url): string[] {
  if (env.INTUTIC_CLI_COMMAND) {
    const parsed: unknown = JSON.parse(env.INTUTIC_CLI_COMMAND);
    if (!Array.isArray(parsed) || parsed.length === 0 || !parsed.every((p) => typeof p === 'string')) {
      throw new IntuticError('E_USAGE', 'INTUTIC_CLI_COMMAND must be a JSON array of strings, e.g. ["node","/path/to/intutic.mjs"]');
    }
    return parsed as string[];
  }
  const script = argv[1];
  if (script && /^intutic(\.mjs)?$/.test(basename(script)) && existsSync(script)) return [process.execPath, script];
  for (let dir = dirname(fileURLToPath(moduleUrl)); ; dir = dirname(dir)) {
    for (const candidate of [join(dir, 'apps/cli/bin/intutic.mjs'), join(dir, 'bin/intutic.mjs')]) {
      if (existsSync(candidate)) return [process.execPath, candidate];
    }
    if (dirname(dir) === dir) break;
  }
  throw new IntuticError('E_USAGE', 'cannot find the intutic CLI to start the repetition proxies with', { hints: ['Set INTUTIC_CLI_COMMAND to a JSON array such as ["node","/path/to/apps/cli/bin/intutic.mjs"].'] });
}

/** INTUTIC_CHAOS_PROXY_ARGS: extra `intutic start` arguments (a JSON array), e.g. a scripted upstream. */
export function proxyExtraArgsFromEnv(env: NodeJS.ProcessEnv): string[] {
  const raw = env.INTUTIC_CHAOS_PROXY_ARGS;
  if (!raw) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = null;
  }
  if (!Array.isArray(parsed) || !parsed.every((p) => typeof p === 'string')) {
    throw new IntuticError('E_USAGE', 'INTUTIC_CHAOS_PROXY_ARGS must be a JSON array of strings, e.g. ["--upstream-anthropic","http://127.0.0.1:8080"]');
  }
  return parsed as string[];
}

/** The queue as it is, for commands that only read it: never starts a Redis, fails fast without one. */
export async function openExistingQueue(env: NodeJS.ProcessEnv): Promise<RunQueue> {
  return new RunQueue(await existingQueueConfig(env));
}

/** The queue's config, once a Redis answers there: runs are only read, so none is started. */
async function existingQueueConfig(env: NodeJS.ProcessEnv): Promise<QueueConfig> {
  const { configured, ...config } = queueConfigFromEnv(env);
  if (!(await pingRedis(config.url))) {
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
