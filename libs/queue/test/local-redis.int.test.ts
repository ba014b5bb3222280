import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import getPort from 'get-port';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { requireOrSkip, scratchDir } from '@intutic/testkit';
import { ensureRedis, findOnPath, pingRedis } from '../src/index.ts';

const redisServer = findOnPath('redis-server');
const homes: string[] = [];
const tempHome = (): string => {
  const home = scratchDir('intutic-home-');
  homes.push(home);
  return home;
};
afterAll(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});
const ok = requireOrSkip('local-redis', { ok: redisServer !== null, reason: 'no redis-server on PATH (apt-get install redis-server)' });

describe.skipIf(!ok)('starting a Redis for the user', () => {
  it('starts redis-server with AOF under ~/.intutic/redis when none answers and none is configured, and says so', async () => {
    const home = tempHome();
    const url = `redis://127.0.0.1:${await getPort()}`;
    const said: string[] = [];
    const started = await ensureRedis({ url, configured: false, home, log: (l) => said.push(l) });
    try {
      expect(started).toMatchObject({ how: 'redis-server' });
      expect(said).toEqual([expect.stringMatching(/^no Redis was running: started .*redis-server on 127\.0\.0\.1:\d+, appendonly data in .*\/redis/)]);
      const client = new Redis(url);
      expect(await client.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
      expect(await client.config('GET', 'dir')).toEqual(['dir', join(home, 'redis')]);
      await client.set('k', 'v');
      client.disconnect();
      await expect.poll(() => readdirSync(join(home, 'redis')).some((f) => f.startsWith('appendonly')), { timeout: 5000 }).toBe(true);
      // A second call finds it answering and starts nothing.
      expect(await ensureRedis({ url, configured: false, home, log: (l) => said.push(l) })).toBeNull();
      expect(said).toHaveLength(1);
    } finally {
      // SHUTDOWN closes the connection: no retry of the command, no reconnect.
      const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      client.on('error', () => undefined);
      await client.connect();
      await client.call('SHUTDOWN', 'NOSAVE').catch(() => undefined);
      client.disconnect();
    }
    await expect.poll(() => pingRedis(url, 200), { timeout: 5000 }).toBe(false);
    expect(existsSync(join(home, 'redis'))).toBe(true);
  });

  it('never starts one in place of a configured REDIS_URL', async () => {
    const home = tempHome();
    const url = `redis://127.0.0.1:${await getPort()}`;
    await expect(ensureRedis({ url, configured: true, home, log: () => undefined })).rejects.toMatchObject({ code: 'E_REDIS_UNAVAILABLE' });
    expect(await pingRedis(url, 200)).toBe(false);
    expect(existsSync(join(home, 'redis'))).toBe(false);
  });

  it('says what it tried when it cannot start one', async () => {
    const home = tempHome();
    const url = `redis://127.0.0.1:${await getPort()}`;
    const error = await ensureRedis({ url, configured: false, home, redisServer: null, docker: null, log: () => undefined }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'E_REDIS_UNAVAILABLE' });
    expect((error as { hints: string[] }).hints.join('\n')).toMatch(/no redis-server on PATH[\s\S]*no container engine/);
  });
});
