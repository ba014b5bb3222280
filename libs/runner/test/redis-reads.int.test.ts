// `chaos status` and `chaos inspect` take one look at the runs. What a user relies on: should Redis go
// away partway through that look, the command says so and exits, E_REDIS_UNAVAILABLE with a hint,
// rather than waiting for Redis to come back. The test brings its own redis-server (a container), which it kills;
// never the shared one.
import { rmSync } from 'node:fs';
import getPort from 'get-port';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { IntuticError } from '@intutic/errors';
import { listRuns, readExistingQueue } from '@intutic/queue';
import { requireOrSkip, scratchDir } from '@intutic/testkit';
import { OwnRedis, ownRedisAvailable } from './fixtures/own-redis.ts';

const ok = requireOrSkip('redis reads', ownRedisAvailable());

let redis: OwnRedis;
let dir: string;
beforeEach(async () => {
  if (!ok) return;
  dir = scratchDir('intutic-redis-reads-');
  redis = new OwnRedis(await getPort(), dir);
  await redis.start();
});
afterEach(async () => {
  await redis?.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ REDIS_URL: redis.url, INTUTIC_QUEUE_PREFIX: 'intutic-reads-test' });

async function failure(look: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  const error = await look.then(
    () => null,
    (e: unknown) => e,
  );
  return { error, ms: Date.now() - started };
}

it.runIf(ok)('fails with E_REDIS_UNAVAILABLE, not a wait, when Redis dies partway through a look', async () => {
  const { error, ms } = await failure(
    readExistingQueue(env(), async (queue) => {
      expect(await listRuns(queue)).toEqual([]);
      await redis.kill();
      return listRuns(queue);
    }),
  );
  expect(error).toBeInstanceOf(IntuticError);
  expect(error).toMatchObject({ code: 'E_REDIS_UNAVAILABLE', message: expect.stringContaining(redis.url) });
  expect((error as IntuticError).hints.join(' ')).toMatch(/went away while the runs were being read/);
  expect(ms, 'budget: a read that loses Redis says so within seconds, it never hangs').toBeLessThan(10_000);
});

it.runIf(ok)('reads and closes as before while Redis answers', async () => {
  expect(await readExistingQueue(env(), (queue) => queue.workersOnline())).toBe(0);
});
