// A test's keys on a real Redis: each test file works under a unique prefix and removes its keys
// afterwards (never FLUSHALL a Redis it was given). On a Redis Cluster each master holds its share of
// the keys, so each master is scanned.
import { Cluster, Redis } from 'ioredis';

export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/**
 * Remove every key under `prefix:` on `redis`: a URL of one Redis (REDIS_URL, else the default local
 * Redis), or a connection the test already has (one Redis or a cluster), which stays open.
 */
export async function deleteKeys(prefix: string, redis: string | Redis | Cluster = process.env.REDIS_URL || DEFAULT_REDIS_URL): Promise<void> {
  // One retry at most: a test's clean-up must not hang on a Redis that went away.
  const client = typeof redis === 'string' ? new Redis(redis, { maxRetriesPerRequest: 1 }) : redis;
  try {
    for (const node of client instanceof Cluster ? client.nodes('master') : [client]) await deleteKeysOn(node, prefix);
  } finally {
    if (typeof redis === 'string') client.disconnect();
  }
}

async function deleteKeysOn(node: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await node.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    // One DEL per key: on a cluster's node one DEL of keys in different slots is refused (CROSSSLOT).
    if (keys.length > 0) await node.pipeline(keys.map((key) => ['del', key])).exec();
  } while (cursor !== '0');
}
