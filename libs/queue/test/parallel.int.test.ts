// --parallel on a real Redis: a phase's repetitions run on several workers at once, the phases stay
// strict (every baseline done before any faulted one exists), an invalid baseline still ends the run,
// and a worker "on another machine" (no local repository) fetches the pinned commit from the git
// remote the job names. Which repetitions ran at once is read from the order of their starts and
// ends (all workers live in this process), never from a clock. `chaos status` shows such a run's gate,
// and its faulted repetitions as pending until the gate adds them.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Worker } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { redisRequirement, requireOrSkip, scratchDir } from '@intutic/testkit';
import { createWorkspace, resolveCommitSource } from '@intutic/workspace';
import {
  buildRunFlow,
  createRunProcessor,
  createRunWorker,
  getRun,
  RunQueue,
  waitForRun,
  type ProgressMessage,
  type RunHandlers,
  type RunPayload,
  type ScoreContext,
} from '../src/index.ts';
import { fakeOutcome, testPayload } from './fixtures/payload.ts';
import { deleteKeys, REDIS_URL, startWorker, uniquePrefix } from './fixtures/harness.ts';
import { mostAtOnce, runningNow, until, type Step } from './fixtures/steps.ts';

const ok = requireOrSkip('parallel runs', await redisRequirement());
const config = { url: REDIS_URL, prefix: uniquePrefix('parallel') };
/** A queue of its own: the other tests' workers stay online until the end and would take its run at once. */
const statusConfig = { url: REDIS_URL, prefix: uniquePrefix('parallel-status') };
const root = realpathSync(scratchDir('intutic-parallel-'));
const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const o of open.reverse()) await o.close();
  if (ok) for (const prefix of [config.prefix, statusConfig.prefix]) await deleteKeys(prefix);
  rmSync(root, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd, encoding: 'utf8', stdio: 'pipe' }).trim();

/** A bare repository standing in for the git remote, and the commit the run pins. */
function remoteRepo(): { remote: string; commit: string; push(text: string): void } {
  const work = join(root, 'upstream-work');
  const remote = join(root, 'upstream.git');
  mkdirSync(work, { recursive: true });
  git(root, 'init', '--quiet', '--bare', remote);
  git(work, 'init', '--quiet', '--initial-branch=main');
  const push = (text: string) => {
    writeFileSync(join(work, 'TASK.md'), text);
    git(work, 'add', '-A');
    git(work, 'commit', '--quiet', '-m', text);
    git(work, 'push', '--quiet', remote, 'HEAD:main');
  };
  push('pinned\n');
  return { remote, commit: git(work, 'rev-parse', 'HEAD'), push };
}

/**
 * Each worker is a separate "machine": its own connection, its own cache of the remote. With more
 * than one, a repetition waits (boundedly) for a second one to be running, so two running at once
 * shows however slowly this machine hands the second job over.
 */
async function startWorkers(n: number, steps: Step[], scored: ScoreContext[], tag: string): Promise<Worker[]> {
  const workers: Worker[] = [];
  for (let w = 0; w < n; w++) {
    const rq = new RunQueue(config);
    const name = `${tag}-w${w}`;
    const home = join(root, name);
    const handlers: RunHandlers = {
      repetition: async (ctx) => {
        const step = { id: ctx.jobId, kind: ctx.data.kind, worker: name };
        steps.push({ ...step, what: 'start' });
        if (n > 1) await until(() => runningNow(steps) >= 2, 10_000);
        const { repo, commit } = ctx.payload;
        const source = await resolveCommitSource({ repoPath: repo.path, remote: repo.remote, commit, cacheDir: join(home, 'repos') });
        const tree = join(home, ctx.jobId);
        await createWorkspace(source, commit, tree);
        steps.push({ ...step, what: 'end', task: readFileSync(join(tree, 'TASK.md'), 'utf8') });
        return fakeOutcome(ctx.data);
      },
      score: async (ctx) => {
        scored.push(ctx);
        return { verdict: 'scored', score: 100, report_path: ctx.payload.report_path, report: {} };
      },
    };
    const worker = createRunWorker(config, createRunProcessor(rq, handlers), { name });
    await worker.waitUntilReady();
    workers.push(worker);
    open.push({
      close: async () => {
        await worker.close();
        await rq.close();
      },
    });
  }
  return workers;
}

describe('the --parallel flow (pure)', () => {
  it('is score ← faulted-phase gate ← every baseline as siblings; no faulted job exists up front', () => {
    const payload: RunPayload = { ...testPayload(3), parallel: true };
    const flow = buildRunFlow(payload, { priority: 7 });
    expect(flow.opts?.jobId).toBe(`${payload.run_id}-score`);
    expect(flow.children?.map((c) => [c.name, c.opts?.jobId])).toEqual([['phase', `${payload.run_id}-phase-f`]]);
    const gate = flow.children![0]!;
    expect(gate.opts).toMatchObject({ ignoreDependencyOnFailure: true, attempts: 1, priority: 7 });
    expect(gate.children?.map((c) => [c.name, c.opts?.jobId, c.children])).toEqual(
      ['b1', 'b2', 'b3'].map((s) => ['repetition', `${payload.run_id}-${s}`, undefined]),
    );
    expect(JSON.stringify(flow)).not.toContain(`${payload.run_id}-f1`);
  });
});

describe.skipIf(!ok)('--parallel', () => {
  it('two workers run two repetitions of a phase at once; phases stay strict; workers fetch the pinned commit from the remote', async () => {
    const upstream = remoteRepo();
    const rq = new RunQueue(config);
    open.push(rq);
    const payloadFor = (): RunPayload => ({
      ...testPayload(4),
      parallel: true,
      commit: upstream.commit,
      repo: { path: join(root, 'not-on-this-machine'), remote: upstream.remote },
    });
    for (const n of [1, 2]) {
      const steps: Step[] = [];
      const scored: ScoreContext[] = [];
      const workers = await startWorkers(n, steps, scored, `n${n}`);
      const payload = payloadFor();
      await rq.enqueue(payload);
      // A commit pushed after the run was enqueued must not change what it runs.
      upstream.push(`later ${n}\n`);
      const end = await waitForRun(rq, payload.run_id, { pollMs: 100 });
      expect(end.state, JSON.stringify(end)).toBe('completed');
      for (const w of workers) await w.close();

      const ends = steps.filter((s) => s.what === 'end');
      expect(ends.map((s) => s.id).sort()).toEqual(['b1', 'b2', 'b3', 'b4', 'f1', 'f2', 'f3', 'f4'].map((s) => `${payload.run_id}-${s}`));
      expect(ends.every((s) => s.task === 'pinned\n')).toBe(true);
      const lastBaselineEnd = steps.findLastIndex((s) => s.kind === 'baseline' && s.what === 'end');
      const firstFaultedStart = steps.findIndex((s) => s.kind === 'faulted' && s.what === 'start');
      expect(firstFaultedStart, 'no faulted repetition starts before every baseline has ended').toBeGreaterThan(lastBaselineEnd);
      expect([mostAtOnce(steps, 'baseline'), mostAtOnce(steps, 'faulted')], `repetitions of a phase running at once with ${n} worker(s)`).toEqual([n, n]);
      expect(scored).toHaveLength(1);
      expect(scored[0]!.repetitions.map((r) => [r.id.slice(payload.run_id.length + 1), r.state])).toEqual(
        ['b1', 'b2', 'b3', 'b4', 'f1', 'f2', 'f3', 'f4'].map((s) => [s, 'completed']),
      );
      expect(scored[0]!.stop, JSON.stringify(scored[0]!.stop)).toBeNull();
      if (n === 2) expect(new Set(ends.map((s) => s.worker)).size).toBe(2);
    }
  }, 120_000);

  it('an invalid baseline ends the run: the running sibling is stopped, the queued one skipped, no faulted repetition is created', async () => {
    const rq = new RunQueue(config);
    open.push(rq);
    const scored: ScoreContext[] = [];
    const sawStop: string[] = [];
    // b1 fails verify only once b2 is running on the other worker, however slow the machine is to
    // hand b2 over: the test is about stopping a running sibling, not about pick-up latency.
    let b2Started!: () => void;
    const b2Running = new Promise<void>((resolve) => (b2Started = resolve));
    const handlers: RunHandlers = {
      repetition: async (ctx) => {
        if (ctx.data.index === 1) {
          await Promise.race([b2Running, new Promise((r) => setTimeout(r, 20_000))]);
          return fakeOutcome(ctx.data, { verify_exit_code: 1 });
        }
        if (ctx.data.index === 2) b2Started();
        // A long agent that stops when the run ends, as the runner does through cancelReason.
        for (let i = 0; i < 100; i++) {
          const reason = await ctx.cancelReason();
          if (reason) {
            sawStop.push(`${ctx.data.kind}${ctx.data.index}: ${reason}`);
            return fakeOutcome(ctx.data, { cancelled: true, error: reason });
          }
          await new Promise((r) => setTimeout(r, 100));
        }
        return fakeOutcome(ctx.data);
      },
      score: async (ctx) => {
        scored.push(ctx);
        return { verdict: 'invalid', score: null, report_path: ctx.payload.report_path, report: {} };
      },
    };
    for (let w = 0; w < 2; w++) {
      const wq = new RunQueue(config);
      const worker = createRunWorker(config, createRunProcessor(wq, handlers), { name: `invalid-w${w}` });
      await worker.waitUntilReady();
      open.push({
        close: async () => {
          await worker.close();
          await wq.close();
        },
      });
    }
    const payload: RunPayload = { ...testPayload(3), parallel: true };
    const messages: ProgressMessage[] = [];
    const unsubscribe = await rq.subscribe(payload.run_id, (m) => messages.push(m));
    await rq.enqueue(payload);
    const end = await waitForRun(rq, payload.run_id, { pollMs: 100 });
    await unsubscribe();
    expect(end.state, JSON.stringify(end)).toBe('completed');
    expect(sawStop).toEqual([expect.stringMatching(/^baseline2: the run ended \(invalid\) in another repetition: baseline repetition 1 failed verify/)]);
    const [score] = scored;
    expect(score!.stop).toMatchObject({ kind: 'invalid', job_id: `${payload.run_id}-b1` });
    const state = Object.fromEntries(score!.repetitions.map((r) => [r.id.slice(payload.run_id.length + 1), `${r.state}/${r.result?.status ?? '-'}`]));
    expect(state).toEqual({ b1: 'completed/ran', b2: 'completed/ran', b3: 'completed/skipped', f1: 'missing/-', f2: 'missing/-', f3: 'missing/-' });
    const skipped = messages.filter((m) => m.type === 'repetition_skipped').map((m) => (m.type === 'repetition_skipped' ? `${m.kind}${m.index}` : ''));
    expect(skipped.sort()).toEqual(['baseline3', 'faulted1', 'faulted2', 'faulted3']);
    expect((await getRun(rq, payload.run_id)).state).toBe('finished');
  }, 60_000);

  it('getRun shows the gate and the faulted repetitions as pending from the moment the run is enqueued, then every job done', async () => {
    const rq = new RunQueue(statusConfig);
    open.push(rq);
    const payload: RunPayload = { ...testPayload(3), parallel: true };
    const short = (id: string) => id.slice(payload.run_id.length + 1);
    const { jobIds } = await rq.enqueue(payload);
    expect(jobIds.map(short)).toEqual(['b1', 'b2', 'b3', 'phase-f', 'f1', 'f2', 'f3', 'score']);

    // No worker on this queue yet: nothing has run, and the gate has not added the faulted repetitions.
    const enqueued = await getRun(rq, payload.run_id);
    expect(enqueued.jobs.map((j) => [short(j.id), j.kind, j.state])).toEqual([
      ['b1', 'baseline', 'prioritized'],
      ['b2', 'baseline', 'prioritized'],
      ['b3', 'baseline', 'prioritized'],
      ['phase-f', 'gate', 'waiting-children'],
      ['f1', 'faulted', 'pending'],
      ['f2', 'faulted', 'pending'],
      ['f3', 'faulted', 'pending'],
      ['score', 'score', 'waiting-children'],
    ]);
    expect(await rq.getJob(`${payload.run_id}-f1`), 'the faulted jobs do not exist in Redis yet').toBeUndefined();
    expect(enqueued.state).toBe('queued');

    const wq = new RunQueue(statusConfig);
    const handlers: RunHandlers = {
      repetition: async (ctx) => fakeOutcome(ctx.data),
      score: async (ctx) => ({ verdict: 'scored', score: 100, report_path: ctx.payload.report_path, report: {} }),
    };
    const worker = startWorker(statusConfig, wq, handlers, 'status-w0');
    open.push({
      close: async () => {
        await worker.close();
        await wq.close();
      },
    });
    const end = await waitForRun(rq, payload.run_id, { pollMs: 100 });
    expect(end.state, JSON.stringify(end)).toBe('completed');

    const finished = await getRun(rq, payload.run_id);
    expect(finished.state).toBe('finished');
    expect(finished.jobs.map((j) => [short(j.id), j.kind, `${j.state}/${j.result?.status ?? '-'}`])).toEqual([
      ['b1', 'baseline', 'completed/ran'],
      ['b2', 'baseline', 'completed/ran'],
      ['b3', 'baseline', 'completed/ran'],
      ['phase-f', 'gate', 'completed/ran'],
      ['f1', 'faulted', 'completed/ran'],
      ['f2', 'faulted', 'completed/ran'],
      ['f3', 'faulted', 'completed/ran'],
      ['score', 'score', 'completed/-'],
    ]);
  }, 60_000);
});
