// A test's keys on a real Redis: each test file works under a unique prefix and removes its keys
// afterwards (never FLUSHALL a Redis it was given).
import { Redis } from 'ioredis';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** Remove every key under `prefix:` on `redisUrl` (REDIS_URL, else the default local Redis). */
export async function deleteKeys(prefix: string, redisUrl: string = process.env.REDIS_URL || DEFAULT_REDIS_URL): Promise<void> {
  // One retry at most: a test's clean-up must not hang on a Redis that went away.
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}
