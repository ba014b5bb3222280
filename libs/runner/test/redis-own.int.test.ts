// The Redis the restart and read tests bring (fixtures/own-redis.ts), checked on its own: what they
// rely on is that a kill -9 loses no acknowledged write, that it comes back on the same port with the
// same data, that it listens on loopback only, and that no container of it outlives the test.
import { execFileSync } from 'node:child_process';
import { networkInterfaces } from 'node:os';
import getPort from 'get-port';
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { pingRedis } from '@intutic/queue';
import { OWNER_LABEL, requireOrSkip, scratchDir } from '@intutic/testkit';
import { OwnRedis, ownRedisAvailable } from './fixtures/own-redis.ts';

const ok = requireOrSkip('own redis', ownRedisAvailable());
const ours = () => execFileSync('docker', ['ps', '-aq', '--filter', `label=${OWNER_LABEL}=${process.pid}`], { encoding: 'utf8' }).trim();

let redis: OwnRedis | undefined;
afterAll(async () => {
  await redis?.kill();
});

it.runIf(ok)('keeps acknowledged writes through a kill -9, on the same port, loopback only, and leaves no container', async () => {
  redis = new OwnRedis(await getPort(), scratchDir('intutic-own-redis-'));
  await redis.start();
  const client = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  for (let i = 0; i < 50; i++) await client.set(`own-redis:${i}`, String(i));
  client.disconnect();

  await redis.kill();
  expect(redis.running).toBe(false);
  expect(await pingRedis(redis.url, 500)).toBe(false);
  expect(ours()).toBe('');

  await redis.start();
  const again = new Redis(redis.url, { maxRetriesPerRequest: 1 });
  expect(await again.mget(...Array.from({ length: 50 }, (_, i) => `own-redis:${i}`))).toEqual(Array.from({ length: 50 }, (_, i) => String(i)));
  again.disconnect();
  const outside = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal);
  if (outside) expect(await pingRedis(`redis://${outside.address}:${redis.port}`, 500)).toBe(false);

  await redis.kill();
  expect(ours()).toBe('');
});
