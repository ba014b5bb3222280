// The run flow on every kind of Redis users run the queue on: one Redis, a Redis Cluster, and a Redis
// over TLS with a password (fixtures/redis-servers.ts starts the last two for this file).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisRequirement, requireOrSkip } from '@intutic/testkit';
import {
  getRun,
  listRuns,
  repetitionJobId,
  resolveRunId,
  RunQueue,
  scoringJobId,
  waitForRun,
  type ProgressMessage,
  type QueueConfig,
  type RepetitionContext,
  type RepetitionOutcome,
  type RunHandlers,
  type ScoreContext,
} from '../src/index.ts';
import { fakeOutcome, testPayload } from './fixtures/payload.ts';
import { deleteKeys, startWorker } from './fixtures/harness.ts';
import { REDIS_KIND_NAMES, REDIS_KINDS, redisServersRequirement, startRedis, type RedisKind, type TestRedis } from './fixtures/redis-servers.ts';

const available: Record<RedisKind, boolean> = {
  single: requireOrSkip('queue', await redisRequirement()),
  cluster: requireOrSkip('queue on a Redis Cluster', redisServersRequirement()),
  tls: requireOrSkip('queue over TLS', redisServersRequirement()),
};

interface Recorded {
  order: string[];
  scored: ScoreContext[];
  spans: { id: string; start: number; end: number }[];
}

function recordingHandlers(
  rec: Recorded,
  decide: (ctx: RepetitionContext) => Promise<Partial<RepetitionOutcome>> | Partial<RepetitionOutcome> = () => ({}),
  delayMs = 0,
): RunHandlers {
  return {
    repetition: async (ctx) => {
      const start = Date.now();
      rec.order.push(ctx.jobId);
      if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
      const over = await decide(ctx);
      rec.spans.push({ id: ctx.jobId, start, end: Date.now() });
      return fakeOutcome(ctx.data, over);
    },
    score: async (ctx) => {
      rec.scored.push(ctx);
      return { verdict: 'scored', score: 100, report_path: ctx.payload.report_path, report: { fake: true } };
    },
  };
}

const newRec = (): Recorded => ({ order: [], scored: [], spans: [] });

for (const kind of REDIS_KINDS) {
  describe.skipIf(!available[kind])(`the run flow on ${REDIS_KIND_NAMES[kind]}`, () => {
    let redis: TestRedis;
    let config: QueueConfig;
    let rq: RunQueue;
    const workers: Worker[] = [];
    /** Child processes still running when a test ends early: killed afterwards. */
    const children: ChildProcess[] = [];

    beforeAll(async () => {
      redis = await startRedis(kind);
      config = redis.config('queue');
      rq = new RunQueue(config);
    });
    afterAll(async () => {
      for (const child of children) child.kill('SIGKILL');
      for (const w of workers) await w.close();
      if (rq) {
        await deleteKeys(config.prefix, rq.redis);
        await rq.close();
      }
      await redis?.stop();
    });

    it('runs baselines, then faulted repetitions, then scoring, each once, and streams progress', async () => {
      const rec = newRec();
      const payload = testPayload(2);
      const messages: ProgressMessage[] = [];
      const unsubscribe = await rq.subscribe(payload.run_id, (m) => messages.push(m));
      await rq.enqueue(payload);
      workers.push(
        startWorker(
          config,
          rq,
          recordingHandlers(rec, async (ctx) => (await ctx.log(`hello from ${ctx.jobId}`), {})),
        ),
      );
      const end = await waitForRun(rq, payload.run_id, { pollMs: 100 });
      expect(end).toMatchObject({ state: 'completed', result: { verdict: 'scored', report_path: payload.report_path } });
      const id = (k: 'baseline' | 'faulted', i: number) => repetitionJobId(payload.run_id, k, i);
      expect(rec.order).toEqual([id('baseline', 1), id('baseline', 2), id('faulted', 1), id('faulted', 2)]);
      expect(rec.scored).toHaveLength(1);
      expect(rec.scored[0]!.repetitions.map((r) => [r.id, r.state, r.result?.status])).toEqual(rec.order.map((j) => [j, 'completed', 'ran']));
      await new Promise((r) => setTimeout(r, 200));
      await unsubscribe();
      expect(messages.filter((m) => m.type === 'repetition_started').map((m) => m.job_id)).toEqual(rec.order);
      expect(messages).toContainEqual({ type: 'log', job_id: id('faulted', 2), line: `hello from ${id('faulted', 2)}` });
      expect(messages.at(-1)).toEqual({ type: 'run_finished', verdict: 'scored', score: 100, report_path: payload.report_path });
      const view = await getRun(rq, payload.run_id, { logs: true });
      expect(view.state).toBe('finished');
      expect(view.jobs.every((j) => j.state === 'completed')).toBe(true);
      expect(view.jobs[0]!.logs.join('\n')).toContain(`hello from ${id('baseline', 1)}`);
      await workers.pop()!.close();
    });

    it('skips the faulted phase when a baseline fails verify, and still scores', async () => {
      const rec = newRec();
      const payload = testPayload(2);
      await rq.enqueue(payload);
      workers.push(
        startWorker(
          config,
          rq,
          recordingHandlers(rec, (ctx) => (ctx.data.kind === 'baseline' && ctx.data.index === 1 ? { verify_exit_code: 1 } : {})),
        ),
      );
      expect(await waitForRun(rq, payload.run_id, { pollMs: 100 })).toMatchObject({ state: 'completed' });
      expect(rec.order).toEqual([repetitionJobId(payload.run_id, 'baseline', 1)]);
      const [b1, b2, f1, f2] = rec.scored[0]!.repetitions;
      expect(b1!.result).toMatchObject({ status: 'ran', stop: { kind: 'invalid' } });
      for (const skipped of [b2, f1, f2]) expect(skipped!.result).toMatchObject({ status: 'skipped', stop: { kind: 'invalid', job_id: b1!.id } });
      await workers.pop()!.close();
    });

    it('ends the run at an abort; the remaining repetitions are cancelled', async () => {
      const rec = newRec();
      const payload = testPayload(2);
      await rq.enqueue(payload);
      workers.push(
        startWorker(
          config,
          rq,
          recordingHandlers(rec, (ctx) => (ctx.data.kind === 'faulted' ? { abort: { condition: 'cost_usd_above', detail: 'spent 3 > 2' } } : {})),
        ),
      );
      expect(await waitForRun(rq, payload.run_id, { pollMs: 100 })).toMatchObject({ state: 'completed' });
      expect(rec.order).toHaveLength(3);
      expect(rec.scored[0]!.repetitions[3]!.result).toMatchObject({ status: 'skipped', stop: { kind: 'aborted', reason: 'cost_usd_above: spent 3 > 2' } });
      await workers.pop()!.close();
    });

    it('a repetition that throws fails alone: no parent waits forever and the run is still scored', async () => {
      const rec = newRec();
      const payload = testPayload(2);
      await rq.enqueue(payload);
      workers.push(
        startWorker(
          config,
          rq,
          recordingHandlers(rec, (ctx) => {
            if (ctx.data.kind === 'baseline' && ctx.data.index === 2) throw new Error('the worktree could not be created');
            return {};
          }),
        ),
      );
      expect(await waitForRun(rq, payload.run_id, { pollMs: 100 })).toMatchObject({ state: 'completed' });
      const reps = rec.scored[0]!.repetitions;
      expect(reps[1]).toMatchObject({ state: 'failed', failed_reason: 'the worktree could not be created' });
      expect(reps[2]!.result).toMatchObject({ status: 'skipped', stop: { kind: 'error', job_id: reps[1]!.id } });
      expect(reps[2]!.result!.stop!.reason).toContain('the worktree could not be created');
      expect(rec.order).toHaveLength(2);
      await workers.pop()!.close();
    });

    it('cancelling a run stops every later job', async () => {
      const rec = newRec();
      const payload = testPayload(2);
      await rq.enqueue(payload);
      workers.push(
        startWorker(
          config,
          rq,
          recordingHandlers(rec, async (ctx) => (ctx.data.index === 1 && ctx.data.kind === 'baseline' ? (await rq.cancel(payload.run_id), {}) : {})),
        ),
      );
      expect(await waitForRun(rq, payload.run_id, { pollMs: 100 })).toMatchObject({ state: 'completed' });
      expect(rec.order).toHaveLength(1);
      expect(rec.scored[0]!.repetitions[1]!.result).toMatchObject({ status: 'skipped', stop: { kind: 'cancelled', reason: 'cancelled by the user' } });
      await workers.pop()!.close();
    });

    it('runs two runs one after the other with one worker, and side by side with two', async () => {
      const overlap = (a: Recorded['spans'], b: Recorded['spans']) => Math.min(...b.map((s) => s.start)) < Math.max(...a.map((s) => s.end));
      const rec = newRec();
      const [p1, p2] = [testPayload(2), testPayload(2)];
      await rq.enqueue(p1);
      await rq.enqueue(p2);
      workers.push(
        startWorker(
          config,
          rq,
          recordingHandlers(rec, () => ({}), 150),
        ),
      );
      await waitForRun(rq, p1.run_id, { pollMs: 100 });
      await waitForRun(rq, p2.run_id, { pollMs: 100 });
      expect(rec.order.map((id) => id.startsWith(p1.run_id))).toEqual([true, true, true, true, false, false, false, false]);
      await workers.pop()!.close();

      const rec2 = newRec();
      const [p3, p4] = [testPayload(2), testPayload(2)];
      await rq.enqueue(p3);
      await rq.enqueue(p4);
      const handlers = recordingHandlers(rec2, () => ({}), 300);
      workers.push(startWorker(config, rq, handlers), startWorker(config, rq, handlers));
      await waitForRun(rq, p3.run_id, { pollMs: 100 });
      await waitForRun(rq, p4.run_id, { pollMs: 100 });
      const spans3 = rec2.spans.filter((s) => s.id.startsWith(p3.run_id));
      const spans4 = rec2.spans.filter((s) => s.id.startsWith(p4.run_id));
      expect(overlap(spans3, spans4)).toBe(true);
      // Within each run the repetitions still never overlap.
      for (const spans of [spans3, spans4]) for (let i = 1; i < spans.length; i++) expect(spans[i]!.start).toBeGreaterThanOrEqual(spans[i - 1]!.end);
      await workers.pop()!.close();
      await workers.pop()!.close();
    });

    it('fails a repetition whose worker was killed, never re-runs it, and shows why', async () => {
      const payload = testPayload(1);
      await rq.enqueue(payload);
      const recordKey = `${config.prefix}:record`;
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', fileURLToPath(new URL('./fixtures/hanging-worker.ts', import.meta.url)), config.prefix, recordKey],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
          env: { ...process.env, ...redis.env, REDIS_URL: config.url },
        },
      );
      children.push(child);
      const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
      const b1 = repetitionJobId(payload.run_id, 'baseline', 1);
      expect(chunk.toString()).toContain(`processing ${b1}`);
      child.kill('SIGKILL');
      await once(child, 'exit');

      expect((await getRun(rq, payload.run_id)).jobs[0]).toMatchObject({ id: b1, state: 'active' });
      // Once the dead worker's lock expires, inspect shows the job as orphaned.
      await expect.poll(async () => (await getRun(rq, payload.run_id)).jobs[0]!.orphaned, { timeout: 20_000, interval: 500 }).toBe(true);

      const rec = newRec();
      workers.push(startWorker(config, rq, recordingHandlers(rec)));
      expect(await waitForRun(rq, payload.run_id, { pollMs: 200 })).toMatchObject({ state: 'completed' });
      expect(rec.order).toEqual([]);
      const view = await getRun(rq, payload.run_id, { logs: true });
      expect(view.jobs[0]).toMatchObject({ state: 'failed', orphaned: false });
      expect(view.jobs[0]!.failed_reason).toContain('its worker stopped in the middle of it');
      expect(view.jobs[1]!.result).toMatchObject({ status: 'skipped', stop: { kind: 'error', job_id: b1 } });
      expect(await rq.redis.lrange(recordKey, 0, -1)).toHaveLength(1);
      await workers.pop()!.close();
    }, 60_000);

    it('lists runs and finds one by a prefix of its id', async () => {
      const runs = await listRuns(rq);
      expect(runs.length).toBeGreaterThanOrEqual(8);
      const newest = runs[0]!;
      expect(await resolveRunId(rq, newest.run_id)).toBe(newest.run_id);
      await expect(resolveRunId(rq, 'no-such-run')).rejects.toMatchObject({ code: 'E_RUN_NOT_FOUND' });
      expect(await rq.getJob(scoringJobId(newest.run_id))).toBeDefined();
    });
  });
}
