// One worker cut off from Redis (a network partition: Redis stays up for everyone else) for longer
// than a job lock lasts, while its repetition's agent, real Claude Code driven by the scripted model,
// runs a command. A second worker, sharing nothing with the first but Redis, takes the job as stalled
// and fails it; the run goes on without it and ends aborted with the reason. When the first worker
// is back it finds the job gone: it stops its agent (never to run it again), says why, the job's
// reason becomes "cut off from Redis", and it cleans up after itself. Nothing ran twice.
// (A lone worker taking its own job back after an outage is redis-restart.int.test.ts.)
import { execFileSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '@intutic/errors';
import { dockerRequirement, redisRequirement, requireOrSkip } from '@intutic/testkit';
import { bashRunning, claudeAgent, claudeImage, ENDED_ON_ITS_OWN, oneCommandScript } from './fixtures/claude.ts';
import { buildCli, createWorld, REDIS_URL, type World } from './fixtures/harness.ts';
import { inspectJobs, processAlive, readReportFile } from './fixtures/reports.ts';
import { TcpRelay } from './fixtures/tcp-relay.ts';

const ok = requireOrSkip('redis cut-off', await redisRequirement()) && requireOrSkip('redis cut-off', dockerRequirement());
/** BullMQ's words and raw connection errors, which must never reach a user. */
const RAW_ERROR = /^\s+at \S|Unhandled error event|internal error|MaxRetriesPerRequest|Connection is closed|ECONNREFUSED|ECONNRESET/m;

let world: World;
let image: string;
let relay: TcpRelay;
beforeAll(async () => {
  if (!ok) return;
  buildCli();
  image = await claudeImage();
  world = await createWorld('redis-cutoff');
  relay = await TcpRelay.start(Number(new URL(REDIS_URL).port || 6379));
  // Runs until something stops it: only losing the job may end this repetition.
  world.model.setScript(oneCommandScript('redis cut-off: a long check', 'tail -f /dev/null', 'The long check is done.'));
}, 1_800_000);
afterAll(async () => {
  await relay?.close();
  await world?.close();
});

type Spawned = ChildProcess & { output: () => string };
const git = (...args: string[]) => execFileSync('git', args, { cwd: world.project, encoding: 'utf8' });
const containersOfRun = (runId: string) => execFileSync('docker', ['ps', '-aq', '--filter', `label=intutic.chaos.run=${runId}`], { encoding: 'utf8' }).trim();

async function stop(child: Spawned | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}

describe.skipIf(!ok)('a worker cut off from Redis while its agent runs, and a second worker', () => {
  it('the second worker fails the job as stalled, the run ends aborted; the first stops its agent, says why, and cleans up', async () => {
    const head = git('rev-parse', 'HEAD');
    // The first worker reaches Redis only through the relay; the second has a home of its own.
    const first = world.spawnCli(['chaos', 'worker'], { REDIS_URL: relay.urlFor(REDIS_URL) });
    const secondHome = join(world.root, 'second-home');
    mkdirSync(secondHome);
    let second: Spawned | undefined;
    let run: Spawned | undefined;
    try {
      await expect.poll(() => first.output(), { timeout: 60_000 }).toContain('worker ready');
      const file = world.experiment('registry-down', { agent: claudeAgent("Run the project's long check."), verify: 'true', repeat: 1 });
      const out = join(world.root, 'cutoff.json');
      run = world.spawnCli(['chaos', 'run', file, '--sandbox-image', image, '--out', out]);
      const runExit = once(run, 'exit') as Promise<[number | null]>;
      await expect.poll(() => /run (\S+):/.exec(run!.output())?.[1], { timeout: 60_000 }).toBeTruthy();
      const runId = /run (\S+):/.exec(run.output())![1]!;
      const b1 = `${runId}-b1`;
      await expect.poll(() => bashRunning(world, b1), { timeout: 180_000, interval: 250 }).toBe(true);
      const state = JSON.parse(readFileSync(join(world.home, '.intutic', 'chaos', 'jobs', b1, 'state.json'), 'utf8')) as {
        proxy: { pid: number };
        worktree: string;
      };
      expect(first.output()).toContain(`started ${b1}`);

      second = world.spawnCli(['chaos', 'worker'], { HOME: secondHome, INTUTIC_HOME: join(secondHome, '.intutic') });
      await expect.poll(() => second!.output(), { timeout: 60_000 }).toContain('worker ready');

      // Cut off: the first worker's lock runs out, and the second worker's stalled check takes the job.
      relay.cut();
      const [code] = await runExit;
      const said = run.output();
      expect(code, said).toBe(EXIT.aborted);
      expect(said).toMatch(/^verdict: aborted — .*its worker stopped in the middle of it \(killed, crashed, or cut off from Redis/m);
      expect(said).not.toMatch(RAW_ERROR);
      expect(second.output()).toContain(`failed ${b1}:`);
      expect(second.output()).not.toContain(`started ${b1}`);
      const report = readReportFile(out);
      expect(report.verdict).toBe('aborted');
      expect(report.repetitions.map((r) => [r.kind, r.index, r.status])).toEqual([['baseline', 1, 'failed']]);
      expect(report.repetitions[0]!.error).toContain('its worker stopped in the middle of it');
      expect(report.skipped).toEqual([{ index: 1, kind: 'faulted', reason: expect.stringContaining(b1) }]);
      // All the while the first worker's agent goes on: it cannot know yet.
      expect(processAlive(state.proxy.pid)).toBe(true);
      expect(containersOfRun(runId)).not.toBe('');

      // Back: the first worker finds the job gone, stops its agent and says why, once.
      relay.mend();
      await expect
        .poll(() => first.output(), { timeout: 60_000, interval: 500 })
        .toContain(`lost ${b1}: its worker was cut off from Redis for longer than the job's lock`);
      await expect.poll(() => containersOfRun(runId), { timeout: 60_000, interval: 500 }).toBe('');
      await expect.poll(() => processAlive(state.proxy.pid), { timeout: 30_000, interval: 500 }).toBe(false);
      await expect.poll(() => existsSync(state.worktree), { timeout: 30_000, interval: 500 }).toBe(false);
      expect(first.output().match(new RegExp(`lost ${b1}:`, 'g'))).toHaveLength(1);
      expect(first.output()).not.toMatch(RAW_ERROR);

      // The job's reason now says what happened; its agent started once, in the first worker only,
      // and Claude Code never ended by itself (it was stopped).
      const [job] = await inspectJobs(world, runId);
      expect(job).toMatchObject({ id: b1, state: 'failed', failed_reason: expect.stringContaining("cut off from Redis for longer than the job's lock") });
      expect(job!.logs.filter((l) => l.includes('agent: sh -c'))).toHaveLength(1);
      const agentOut = report.repetitions[0]!.artifacts.agent_output;
      expect(existsSync(agentOut) ? readFileSync(agentOut, 'utf8') : '').not.toContain(ENDED_ON_ITS_OWN);
      expect(git('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
      expect(git('status', '--porcelain')).toBe('');
      expect(git('rev-parse', 'HEAD')).toBe(head);

      // Both workers live on.
      expect(first.exitCode).toBeNull();
      expect(second.exitCode).toBeNull();
    } finally {
      relay.mend();
      for (const child of [run, second, first]) await stop(child);
    }
    expect(first.exitCode, first.output()).toBe(0);
    expect(second.exitCode, second.output()).toBe(0);
  }, 600_000);
});
