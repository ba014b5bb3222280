// Redis restarted in the middle of a run. The test brings its own redis-server, in a container (AOF, fsync always,
// so every acknowledged write survives a kill -9), runs a worker and a following `chaos run` whose
// agent is real Claude Code (driven by the scripted model), and kills Redis while the first
// repetition's agent runs a command, then starts it again on the same port and data directory. What a
// user relies on: the run finishes and is scored with every repetition; no job is lost and none ran
// twice; the worker and the CLI say they lost Redis and are reconnecting (no stack trace) and carry
// on; a worker whose job lock ran out meanwhile takes it back; nothing of the run is left behind.
// (Another worker taking the job while its worker is cut off is redis-cutoff.int.test.ts.)
import { execFileSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import getPort from 'get-port';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerRequirement, requireOrSkip, scratchDir } from '@intutic/testkit';
import { bashRunning, claudeAgent, claudeImage, ENDED_ON_ITS_OWN, oneCommandScript } from './fixtures/claude.ts';
import { buildCli, createWorld, REGISTRY_HOST, type World } from './fixtures/harness.ts';
import { inspectJobs, readReportFile, processAlive } from './fixtures/reports.ts';
import { OwnRedis, ownRedisAvailable } from './fixtures/own-redis.ts';

const ok = requireOrSkip('redis restart', dockerRequirement()) && requireOrSkip('redis restart', ownRedisAvailable());
/** The model's side: "install" from the registry (the fault fires there), then work for `seconds`. */
const work = (seconds: number) =>
  oneCommandScript(
    `redis restart: the registry, then ${seconds} s of work`,
    `curl -sS http://${REGISTRY_HOST}/lodash; for i in $(seq 1 ${seconds * 2}); do echo "still working ($i)"; sleep 0.5; done`,
    'The work is done.',
  );
/** What must never reach a user's terminal: a stack frame, or ioredis' and BullMQ's raw errors. */
const RAW_ERROR = /^\s+at \S|Unhandled error event|internal error|MaxRetriesPerRequest|Connection is closed|ECONNREFUSED|ECONNRESET/m;

let redis: OwnRedis;
let redisDir: string;
let world: World;
let image: string;
beforeAll(async () => {
  if (!ok) return;
  buildCli();
  image = await claudeImage();
  redisDir = scratchDir('intutic-redis-restart-');
  redis = new OwnRedis(await getPort(), redisDir);
  await redis.start();
  world = await createWorld('redis-restart', { redisUrl: redis.url });
}, 1_800_000);
afterAll(async () => {
  // A test that failed with Redis down must not leave the clean-up waiting for it.
  if (redis && !redis.running) await redis.start();
  await world?.close();
  await redis?.kill();
  if (redisDir) rmSync(redisDir, { recursive: true, force: true });
});

const git = (...args: string[]) => execFileSync('git', args, { cwd: world.project, encoding: 'utf8' });
const containersOfRun = (runId: string) => execFileSync('docker', ['ps', '-aq', '--filter', `label=intutic.chaos.run=${runId}`], { encoding: 'utf8' }).trim();

async function exitOf(child: ChildProcess, timeoutMs: number): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return code;
}

interface Started {
  worker: ReturnType<World['spawnCli']>;
  follower: ReturnType<World['spawnCli']>;
  runId: string;
  out: string;
  /** The first repetition's proxy and worktree, to check they are gone afterwards. */
  b1: { pid: number; worktree: string };
}

/** A worker, then `chaos run` following a run; resolves once the first repetition's agent is working. */
async function startRun(name: string, repeat: number, agentSeconds: number): Promise<Started> {
  world.model.setScript(work(agentSeconds));
  const worker = world.spawnCli(['chaos', 'worker']);
  await expect.poll(() => worker.output(), { timeout: 60_000 }).toContain('worker ready');
  const file = world.experiment('registry-down', { agent: claudeAgent('Add lodash, then do the work.'), verify: 'true', repeat });
  const out = join(world.root, `${name}.json`);
  const follower = world.spawnCli(['chaos', 'run', file, '--sandbox-image', image, '--out', out]);
  await expect.poll(() => /run (\S+):/.exec(follower.output())?.[1], { timeout: 60_000 }).toBeTruthy();
  const runId = /run (\S+):/.exec(follower.output())![1]!;
  // Claude Code is running the command: its gate let its Bash call run.
  await expect.poll(() => bashRunning(world, `${runId}-b1`), { timeout: 180_000, interval: 250 }).toBe(true);
  const state = JSON.parse(readFileSync(join(world.home, '.intutic', 'chaos', 'jobs', `${runId}-b1`, 'state.json'), 'utf8')) as {
    proxy: { pid: number };
    worktree: string;
  };
  return { worker, follower, runId, out, b1: { pid: state.proxy.pid, worktree: state.worktree } };
}

/** Both processes said once that they lost Redis and that it is back, and never showed a raw error. */
function expectToldPlainly(output: string): void {
  expect(output).not.toMatch(RAW_ERROR);
  expect(output.match(/lost the connection to Redis at redis:\/\/127\.0\.0\.1:\d+: reconnecting/g)).toHaveLength(1);
  expect(output.match(/reconnected to Redis at redis:\/\/127\.0\.0\.1:\d+ after \d+\.\d s/g)).toHaveLength(1);
}

/** No container, proxy process or worktree of the run is left, and the project is as it was. */
function expectNothingLeft(started: Started, head: string): void {
  expect(containersOfRun(started.runId)).toBe('');
  expect(processAlive(started.b1.pid)).toBe(false);
  expect(existsSync(started.b1.worktree)).toBe(false);
  expect(git('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  expect(git('status', '--porcelain')).toBe('');
  expect(git('rev-parse', 'HEAD')).toBe(head);
}

async function stopWorker(worker: ChildProcess & { output: () => string }): Promise<void> {
  worker.kill('SIGTERM');
  expect(await exitOf(worker, 60_000), worker.output()).toBe(0);
}

describe.skipIf(!ok)('Redis restarted in the middle of a run', () => {
  it('a few seconds without Redis while an agent runs: the run is scored with every repetition, each run once, nothing left', async () => {
    const head = git('rev-parse', 'HEAD');
    const started = await startRun('short', 2, 8);
    const { worker, follower, runId } = started;
    try {
      // Redis goes away with the agent half-way, and comes back on the same port and data a few seconds later.
      const downAt = Date.now();
      await redis.kill();
      try {
        // Meanwhile a command that needs Redis says so, in one line, and exits 3.
        const status = await world.cli(['chaos', 'status', runId]);
        expect(status.code).toBe(3);
        expect(status.stderr).toMatch(/^error\[E_REDIS_UNAVAILABLE\]: no Redis answers at redis:\/\/127\.0\.0\.1:\d+$/m);
        expect(status.stderr).not.toMatch(RAW_ERROR);
      } finally {
        await new Promise((r) => setTimeout(r, Math.max(0, downAt + 4000 - Date.now())));
        await redis.start();
      }

      const code = await exitOf(follower, 240_000);
      const said = follower.output();
      expect(code, said).toBe(0);
      expect(said).not.toContain('no worker is online');
      expectToldPlainly(said);
      expect(said).toContain("live progress sent while Redis was away is not shown here; the run's artifacts have all of it");
      expect(said).toContain('verdict: scored');

      const report = readReportFile(started.out);
      expect(report.verdict).toBe('scored');
      expect(report.repetitions.map((r) => `${r.kind}${r.index}:${r.error ?? 'ok'}`)).toEqual(['baseline1:ok', 'baseline2:ok', 'faulted1:ok', 'faulted2:ok']);
      expect(report.skipped).toEqual([]);

      // Every job is there and finished; each repetition's agent started exactly once.
      const jobs = await inspectJobs(world, runId);
      expect(jobs.map((j) => `${j.id.slice(runId.length + 1)}:${j.state}`)).toEqual([
        'b1:completed',
        'b2:completed',
        'f1:completed',
        'f2:completed',
        'score:completed',
      ]);
      for (const job of jobs.slice(0, 4))
        expect(
          job.logs.filter((l) => l.includes('agent: sh -c')),
          job.id,
        ).toHaveLength(1);

      // The worker went on with the later jobs.
      const log = worker.output();
      expect(worker.exitCode).toBeNull();
      expectToldPlainly(log);
      expect(log).toContain(`finished ${runId}-b1`);
      expect(log).toContain(`started ${runId}-f2`);
      expect(log).toContain(`finished ${runId}-score`);
      expectNothingLeft(started, head);
    } finally {
      await stopWorker(worker);
    }
  }, 360_000);

  it('longer without Redis than a job lock lasts: the worker takes its job back, the run is scored, the agent ran once', async () => {
    const head = git('rev-parse', 'HEAD');
    const started = await startRun('long', 1, 30);
    const { worker, follower, runId } = started;
    try {
      // Longer than the lock (10 s) lasts: it runs out while Redis is down. No other worker could take
      // the job meanwhile, and this one checks for stalled jobs only after it renewed its own locks.
      await redis.kill();
      try {
        await new Promise((r) => setTimeout(r, 14_000));
      } finally {
        await redis.start();
      }

      const code = await exitOf(follower, 240_000);
      const said = follower.output();
      expect(code, said).toBe(0);
      expectToldPlainly(said);
      expect(said).toContain('verdict: scored');
      expect(worker.output()).toContain(`${runId}-b1: its lock ran out while Redis was away; it is still active, so this worker took it again`);
      expect(worker.output()).not.toContain(`lost ${runId}-b1`);

      const report = readReportFile(started.out);
      expect(report.verdict).toBe('scored');
      expect(report.repetitions.map((r) => `${r.kind}${r.index}:${r.error ?? 'ok'}`)).toEqual(['baseline1:ok', 'faulted1:ok']);
      // Claude Code worked through the outage and ended by itself, in both repetitions.
      for (const rep of report.repetitions) expect(readFileSync(rep.artifacts.agent_output, 'utf8'), rep.kind).toContain(ENDED_ON_ITS_OWN);

      const jobs = await inspectJobs(world, runId);
      expect(jobs.map((j) => `${j.id.slice(runId.length + 1)}:${j.state}`)).toEqual(['b1:completed', 'f1:completed', 'score:completed']);
      for (const job of jobs.slice(0, 2))
        expect(
          job.logs.filter((l) => l.includes('agent: sh -c')),
          job.id,
        ).toHaveLength(1);
      const log = worker.output();
      expect(worker.exitCode).toBeNull();
      expectToldPlainly(log);
      expect(log).toContain(`finished ${runId}-score`);
      expectNothingLeft(started, head);
    } finally {
      await stopWorker(worker);
    }
  }, 360_000);
});
