// The queue on Redis as users run it in production, started for this file on loopback: a Redis Cluster
// (three masters, a password) and a Redis that takes TLS only and a password. --parallel runs there as
// on one Redis (parallel.int.test.ts); a worker or `chaos status` configured from the environment alone
// reaches them (REDIS_URL, NODE_EXTRA_CA_CERTS; the prefix is hash-tagged for the cluster); and a wrong
// password is said as such, never with the password in it.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { networkInterfaces } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Worker } from 'bullmq';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IntuticError } from '@intutic/errors';
import { requireOrSkip, scratchDir } from '@intutic/testkit';
import {
  createRunProcessor,
  createRunWorker,
  getRun,
  pingRedis,
  redisAnswers,
  RunQueue,
  waitForRun,
  type QueueConfig,
  type RunHandlers,
  type RunPayload,
  type ScoreContext,
} from '../src/index.ts';
import { fakeOutcome, testPayload } from './fixtures/payload.ts';
import { deleteKeys, uniquePrefix } from './fixtures/harness.ts';
import { REDIS_KIND_NAMES, redisServersRequirement, startRedis, type TestRedis } from './fixtures/redis-servers.ts';
import { mostAtOnce, runningNow, until, type Step } from './fixtures/steps.ts';

const run = promisify(execFile);
const ok = requireOrSkip('queue on managed Redis', redisServersRequirement());
const KINDS = ['cluster', 'tls'] as const;

/** `chaos status` in a process of its own, configured from `env` alone (fixtures/read-queue.ts). */
async function readQueueAlone(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const script = fileURLToPath(new URL('./fixtures/read-queue.ts', import.meta.url));
  const { NODE_EXTRA_CA_CERTS: _, ...parent } = process.env;
  return run(process.execPath, ['--import', 'tsx', script], { env: { ...parent, ...env }, timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );
}

/** The URL with another password in place of its own. */
const withPassword = (redis: TestRedis, password: string) => redis.url.replace(encodeURIComponent(redis.password!), encodeURIComponent(password));

for (const kind of KINDS) {
  describe.skipIf(!ok)(`the queue on ${REDIS_KIND_NAMES[kind]}`, () => {
    let redis: TestRedis;
    let config: QueueConfig;
    const open: { close(): Promise<void> }[] = [];
    beforeAll(async () => {
      redis = await startRedis(kind);
      config = redis.config('managed');
    });
    afterAll(async () => {
      for (const o of open.reverse()) await o.close();
      if (redis) {
        const rq = new RunQueue(config);
        await deleteKeys(config.prefix, rq.redis);
        await rq.close();
        await redis.stop();
      }
    });

    it('--parallel: two workers run two repetitions of a phase at once, the phases stay strict, scoring gets every repetition', async () => {
      const rq = new RunQueue(config);
      open.push(rq);
      const steps: Step[] = [];
      const scored: ScoreContext[] = [];
      const handlers: RunHandlers = {
        repetition: async (ctx) => {
          const step = { id: ctx.jobId, kind: ctx.data.kind };
          steps.push({ ...step, what: 'start' });
          // Two at once, however slowly the machine hands the second job over; the last one of a phase may be alone.
          await until(() => runningNow(steps) >= 2 || steps.filter((s) => s.kind === step.kind && s.what === 'start').length === 4, 10_000);
          steps.push({ ...step, what: 'end' });
          return fakeOutcome(ctx.data);
        },
        score: async (ctx) => {
          scored.push(ctx);
          return { verdict: 'scored', score: 100, report_path: ctx.payload.report_path, report: {} };
        },
      };
      const workers: Worker[] = [];
      for (let w = 0; w < 2; w++) {
        const wq = new RunQueue(config);
        const worker = createRunWorker(config, createRunProcessor(wq, handlers), { name: `${kind}-w${w}` });
        await worker.waitUntilReady();
        workers.push(worker);
        open.push({
          close: async () => {
            await worker.close();
            await wq.close();
          },
        });
      }
      const payload: RunPayload = { ...testPayload(4), parallel: true };
      await rq.enqueue(payload);
      const end = await waitForRun(rq, payload.run_id, { pollMs: 100 });
      expect(end.state, JSON.stringify(end)).toBe('completed');
      expect(await rq.workersOnline()).toBe(2);
      for (const w of workers) await w.close();

      const ids = ['b1', 'b2', 'b3', 'b4', 'f1', 'f2', 'f3', 'f4'];
      expect(
        steps
          .filter((s) => s.what === 'end')
          .map((s) => s.id)
          .sort(),
      ).toEqual(ids.map((s) => `${payload.run_id}-${s}`));
      const lastBaselineEnd = steps.findLastIndex((s) => s.kind === 'baseline' && s.what === 'end');
      const firstFaultedStart = steps.findIndex((s) => s.kind === 'faulted' && s.what === 'start');
      expect(firstFaultedStart, 'no faulted repetition starts before every baseline has ended').toBeGreaterThan(lastBaselineEnd);
      expect([mostAtOnce(steps, 'baseline'), mostAtOnce(steps, 'faulted')]).toEqual([2, 2]);
      expect(scored).toHaveLength(1);
      expect(scored[0]!.repetitions.map((r) => [r.id.slice(payload.run_id.length + 1), r.state])).toEqual(ids.map((s) => [s, 'completed']));
      expect((await getRun(rq, payload.run_id)).state).toBe('finished');
    }, 120_000);

    it('a process configured from the environment alone reaches it (REDIS_URL, NODE_EXTRA_CA_CERTS)', async () => {
      const prefix = uniquePrefix('from-env');
      const said = await readQueueAlone({ ...redis.env, REDIS_URL: redis.url, INTUTIC_QUEUE_PREFIX: prefix });
      expect(said, said.stderr).toMatchObject({ code: 0, stdout: `prefix ${kind === 'cluster' ? `{${prefix}}` : prefix}, workers online: 0\n` });
    }, 60_000);

    it('a wrong password is said as such (E_CONFIG_INVALID), never with a password in it', async () => {
      const wrong = `wrong:${redis.password!}`;
      const url = withPassword(redis, wrong);
      const error = await redisAnswers(url, config.tls ? { tls: config.tls } : {}).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'E_CONFIG_INVALID', message: expect.stringMatching(/refused the credentials: WRONGPASS/) });
      const said = await readQueueAlone({ ...redis.env, REDIS_URL: url });
      expect(said.code).toBe(3);
      expect(said.stderr).toMatch(/^error\[E_CONFIG_INVALID\]: the Redis at \S+:\/\/default:\*\*\*@127\.0\.0\.1:\d+\S* refused the credentials: WRONGPASS/);
      const shown = `${(error as Error).message}\n${(error as { hints: string[] }).hints.join('\n')}\n${said.stdout}${said.stderr}`;
      for (const password of [wrong, redis.password!]) {
        expect(shown).not.toContain(password);
        expect(shown).not.toContain(encodeURIComponent(password));
      }
    }, 60_000);

    if (kind === 'tls') {
      it("says that the server's certificate is not trusted, and how to trust it, rather than that no Redis answers", async () => {
        const said = await readQueueAlone({ REDIS_URL: redis.url });
        expect(said.code).toBe(3);
        expect(said.stderr).toMatch(/^error\[E_REDIS_UNAVAILABLE\]: no Redis answers at rediss:\/\/default:\*\*\*@/);
        expect(said.stderr).toMatch(/TLS certificate is not trusted \(.*certificate.*\): name its CA in NODE_EXTRA_CA_CERTS/);
        expect(said.stderr).not.toContain(encodeURIComponent(redis.password!));
      }, 60_000);
    }

    it("a run's progress arrives in the order it was published, from any number of publishers", async () => {
      const [publisher, other, follower] = [new RunQueue(config), new RunQueue(config), new RunQueue(config)];
      open.push(publisher, other, follower);
      const runId = testPayload(1).run_id;
      const lines: string[] = [];
      const unsubscribe = await follower.subscribe(runId, (m) => {
        if (m.type === 'log') lines.push(m.line);
      });
      const sent = Array.from({ length: 200 }, (_, i) => String(i));
      for (const line of sent) await (Number(line) % 2 ? other : publisher).publish(runId, { type: 'log', job_id: `${runId}-b1`, line });
      await until(() => lines.length === sent.length, 5_000);
      await unsubscribe();
      expect(lines).toEqual(sent);
    });

    if (kind === 'cluster') {
      it("deleteKeys removes a prefix's keys from every master", async () => {
        const rq = new RunQueue(config);
        open.push(rq);
        const cluster = rq.redis as Cluster;
        const prefix = uniquePrefix('spread');
        // Without a hash tag the keys spread over the masters.
        for (let i = 0; i < 30; i++) await cluster.set(`${prefix}:${i}`, 'x');
        const perMaster = async () => Promise.all(cluster.nodes('master').map(async (node) => (await node.keys(`${prefix}:*`)).length));
        expect((await perMaster()).filter((n) => n > 0).length, 'masters holding some of the keys').toBe(3);
        await deleteKeys(prefix, cluster);
        expect(await perMaster()).toEqual([0, 0, 0]);
      });
    }
  });
}

describe.skipIf(!ok)('a Redis in protected mode', () => {
  it('is said to refuse us for its protected mode, with what to do, rather than to be missing', async () => {
    // Protected mode only bites off loopback: bind to all addresses and come in by a non-loopback one.
    const address = Object.values(networkInterfaces())
      .flat()
      .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
    expect(address, 'a non-loopback IPv4 address on this machine').toBeDefined();
    const dir = scratchDir('intutic-redis-protected-');
    const port = 40_000 + (process.pid % 20_000);
    const server = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '0.0.0.0', '--protected-mode', 'yes', '--dir', dir, '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    try {
      for (let waited = 0; !(await pingRedis(`redis://127.0.0.1:${port}`)) && waited < 10_000; waited += 100) await new Promise((r) => setTimeout(r, 100));
      const error = await redisAnswers(`redis://${address}:${port}`).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(IntuticError);
      expect((error as IntuticError).code).toBe('E_REDIS_UNAVAILABLE');
      expect((error as IntuticError).hints.join(' ')).toMatch(/protected mode.*--protected-mode no/s);
    } finally {
      server.kill('SIGTERM');
      await once(server, 'exit');
    }
  });
});
