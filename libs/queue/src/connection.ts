// Redis connections for the CLI and the workers. BullMQ needs maxRetriesPerRequest: null on the
// connections its workers block on; the CLI first pings with a short timeout so a missing Redis is
// reported at once instead of retried forever. Once connected, a lost connection is tried again
// every second at most (reconnect.ts says so once), so a restarted Redis is found again at once.
import { Redis, type RedisOptions } from 'ioredis';
import { IntuticError } from '@intutic/errors';
import { DEFAULT_PREFIX, DEFAULT_REDIS_URL } from './names.ts';

export interface QueueConfig {
  url: string;
  /** BullMQ key prefix; tests use a unique one per file. */
  prefix: string;
}

export function queueConfigFromEnv(env: NodeJS.ProcessEnv): QueueConfig & { configured: boolean } {
  const url = env.REDIS_URL && env.REDIS_URL.trim() !== '' ? env.REDIS_URL.trim() : DEFAULT_REDIS_URL;
  const prefix = env.INTUTIC_QUEUE_PREFIX && env.INTUTIC_QUEUE_PREFIX.trim() !== '' ? env.INTUTIC_QUEUE_PREFIX.trim() : DEFAULT_PREFIX;
  return { url, prefix, configured: Boolean(env.REDIS_URL && env.REDIS_URL.trim() !== '') };
}

export const RECONNECT_MAX_MS = 1000;

/** ioredis retryStrategy: retry soon after Redis answers again (BullMQ's own default backs off to 20 s). */
export function reconnectDelay(times: number): number {
  return Math.min(times * 200, RECONNECT_MAX_MS);
}

/** A connection for BullMQ (Queue, Worker, FlowProducer) and our own keys. */
export function connectRedis(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, retryStrategy: reconnectDelay, ...options });
}

/**
 * A connection for one look at the runs (`chaos status`, `chaos inspect`): should Redis go away, a
 * command fails after two reconnects (under a second), where a run's connections wait for Redis to
 * come back.
 */
export function connectRedisForReads(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: 2, enableReadyCheck: true, retryStrategy: reconnectDelay });
}

/** Whether an ioredis error says the connection to Redis was lost, rather than that a command failed. */
export function isConnectionLost(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return error.name === 'MaxRetriesPerRequestError' || /Connection is closed|ECONNREFUSED|ECONNRESET|EPIPE/.test(error.message);
}

/** ioredis options from a redis:// or rediss:// URL, for a connection BullMQ owns and closes itself. */
export function redisOptionsFromUrl(url: string): RedisOptions {
  const u = new URL(url);
  const db = u.pathname.replace(/^\//, '');
  return {
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: Number(u.port || 6379),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(db ? { db: Number(db) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
    retryStrategy: reconnectDelay,
  };
}

/** Whether a Redis answers PING at `url` within `timeoutMs`. Never throws. */
export async function pingRedis(url: string, timeoutMs = 1500): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

export function redisUnavailable(url: string, hints: string[] = []): IntuticError {
  return new IntuticError('E_REDIS_UNAVAILABLE', `no Redis answers at ${redactUrl(url)}`, {
    hints: [...hints, 'Start one (redis-server), or set REDIS_URL to a Redis the workers share.'],
  });
}

/** A Redis URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString().replace(/\/$/, '');
  } catch {
    return url;
  }
}
