// What a Redis URL says, without a Redis: which kind it names, how it is shown (never its password),
// and the prefix a cluster needs. The connections themselves are tested on real servers
// (queue.int.test.ts, managed-redis.int.test.ts).
import { describe, expect, it } from 'vitest';
import { createRunWorker, hashTagged, isClusterUrl, queueConfigFromEnv, redactUrl, RunQueue, workerConnection } from '../src/index.ts';

const processor = async () => undefined;

describe('a Redis URL', () => {
  it('names a cluster by its scheme', () => {
    expect(['redis+cluster://a:1,b:2', 'rediss+cluster://a:1', 'REDIS+CLUSTER://a:1'].map(isClusterUrl)).toEqual([true, true, true]);
    expect(['redis://a:1', 'rediss://a:1', 'redis://cluster:1'].map(isClusterUrl)).toEqual([false, false, false]);
  });

  it('is shown without its password, whatever its form', () => {
    expect(redactUrl('rediss://default:p%40ss@example.com:6380')).toBe('rediss://default:***@example.com:6380');
    expect(redactUrl('redis://:secret@127.0.0.1:6379/2')).toBe('redis://:***@127.0.0.1:6379/2');
    expect(redactUrl('redis://127.0.0.1:6379')).toBe('redis://127.0.0.1:6379');
    expect(redactUrl('rediss+cluster://default:s3cret@h1:7000,h2:7001')).toBe('rediss+cluster://default:***@h1:7000,h2:7001');
    expect(redactUrl('redis+cluster://h1:7000,h2:7001')).toBe('redis+cluster://h1:7000,h2:7001');
    expect(redactUrl('redis+cluster://user@h1:7000')).toBe('redis+cluster://user@h1:7000');
    // Unencoded @ and / in a password make no URL; all before the last @ but the user still goes.
    expect(redactUrl('redis://u:p@ss/w@rd@host:6379')).toBe('redis://u:***@host:6379');
  });

  it('of a cluster is refused when it names a database or options', () => {
    const config = { url: 'redis+cluster://:secret@127.0.0.1:7000/3', prefix: '{p}' };
    expect(() => workerConnection(config)).toThrow(expect.objectContaining({ code: 'E_CONFIG_INVALID', hints: [expect.stringContaining('database 0 only')] }));
    expect(() => workerConnection(config)).toThrow(/redis\+cluster:\/\/:\*\*\*@127\.0\.0\.1:7000\/3$/);
  });
});

describe('the key prefix on a cluster', () => {
  it('is wrapped in a hash tag unless it has one', () => {
    expect(hashTagged('intutic')).toBe('{intutic}');
    expect(hashTagged('{intutic}')).toBe('{intutic}');
    expect(hashTagged('team-{a}-x')).toBe('team-{a}-x');
    expect(() => hashTagged('a{}b')).toThrow(expect.objectContaining({ code: 'E_CONFIG_INVALID' }));
  });

  it('comes from the environment hash-tagged for a cluster, as it is for one Redis', () => {
    const cluster = 'redis+cluster://127.0.0.1:7000,127.0.0.1:7001';
    expect(queueConfigFromEnv({ REDIS_URL: cluster })).toEqual({ url: cluster, prefix: '{intutic}', configured: true });
    expect(queueConfigFromEnv({ REDIS_URL: cluster, INTUTIC_QUEUE_PREFIX: 'team' })).toMatchObject({ prefix: '{team}' });
    expect(queueConfigFromEnv({ REDIS_URL: 'redis://127.0.0.1:6379', INTUTIC_QUEUE_PREFIX: 'team' })).toMatchObject({ prefix: 'team' });
    expect(queueConfigFromEnv({})).toMatchObject({ prefix: 'intutic', configured: false });
  });

  it('is refused without a hash tag by the queue and the worker, before they connect', () => {
    const config = { url: 'redis+cluster://127.0.0.1:1', prefix: 'intutic' };
    const refused = expect.objectContaining({ code: 'E_CONFIG_INVALID', message: expect.stringContaining('has no hash tag') });
    expect(() => new RunQueue(config)).toThrow(refused);
    expect(() => createRunWorker(config, processor, { autorun: false })).toThrow(refused);
  });
});
