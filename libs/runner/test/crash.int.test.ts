// The crash story: a worker killed with -9 in the middle of a repetition, while real Claude Code
// (driven by the scripted model) runs a long command in its sandbox. Its proxy stops at once (its
// stdin, the dead worker's pipe, ended); `chaos inspect` shows the job and why it failed; once a
// worker starts again no container or worktree of that run remains, the repetition was never
// re-run, and the project's git status is unchanged.
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerRequirement, redisRequirement, requireOrSkip } from '@intutic/testkit';
import { bashRunning, claudeAgent, claudeImage, oneCommandScript } from './fixtures/claude.ts';
import { buildCli, createWorld, type World } from './fixtures/harness.ts';
import { inspectJobs, readReportFile, processAlive } from './fixtures/reports.ts';

const ok = requireOrSkip('chaos crash', await redisRequirement()) && requireOrSkip('chaos crash', dockerRequirement());

let world: World;
let image: string;
beforeAll(async () => {
  if (!ok) return;
  buildCli();
  image = await claudeImage();
  world = await createWorld('crash');
  world.model.setScript(oneCommandScript('crash: a long check the worker dies in the middle of', 'tail -f /dev/null', 'The long check is done.'));
}, 1_800_000);
afterAll(async () => {
  await world?.close();
});

const git = (...args: string[]) => execFileSync('git', args, { cwd: world.project, encoding: 'utf8' });
const containersOf = (jobId: string) => execFileSync('docker', ['ps', '-aq', '--filter', `label=intutic.chaos.job=${jobId}`], { encoding: 'utf8' }).trim();

describe.skipIf(!ok)('a worker killed with -9 mid-repetition', () => {
  it('leaves a job that inspect explains, and a restarted worker removes everything of it', async () => {
    const head = git('rev-parse', 'HEAD');
    expect(git('status', '--porcelain')).toBe('');
    const first = world.spawnCli(['chaos', 'worker']);
    await expect.poll(() => first.output(), { timeout: 60_000 }).toContain('worker ready');

    const file = world.experiment('registry-down', { agent: claudeAgent("Run the project's long check."), verify: 'true', repeat: 1 });
    const out = join(world.root, 'crash.json');
    const enqueued = await world.cli(['chaos', 'run', file, '--sandbox-image', image, '--out', out, '--detach']);
    expect(enqueued.code, enqueued.stderr).toBe(0);
    const runId = /run (\S+):/.exec(enqueued.stderr)![1]!;
    const b1 = `${runId}-b1`;

    // Claude Code is running the long check: its container is up, its gate let the command run, and
    // the job's state file names its proxy.
    const statePath = join(world.home, '.intutic', 'chaos', 'jobs', b1, 'state.json');
    await expect.poll(() => containersOf(b1) !== '' && bashRunning(world, b1), { timeout: 180_000, interval: 250 }).toBe(true);
    expect(JSON.parse(readFileSync(statePath, 'utf8')).proxy).not.toBeNull();
    await expect.poll(() => first.output(), { timeout: 30_000 }).toContain('started');
    const state = JSON.parse(readFileSync(statePath, 'utf8')) as { proxy: { pid: number; mark: string }; worktree: string };
    expect(existsSync(state.worktree)).toBe(true);
    expect(processAlive(state.proxy.pid)).toBe(true);
    expect(readFileSync(`/proc/${state.proxy.pid}/cmdline`, 'utf8')).toContain(state.proxy.mark);

    first.kill('SIGKILL');
    await once(first, 'exit');
    // The proxy serves no one any more: it stopped when its stdin, the dead worker's pipe, ended.
    await expect.poll(() => processAlive(state.proxy.pid), { timeout: 10_000, interval: 100 }).toBe(false);
    expect(containersOf(b1)).not.toBe('');

    // Inspect shows the job; once the dead worker's lock expires, that its worker died.
    await expect.poll(async () => (await inspectJobs(world, runId))[0]!.orphaned, { timeout: 40_000, interval: 1000 }).toBe(true);
    const shown = await world.cli(['chaos', 'inspect', runId]);
    expect(shown.stdout).toContain(`${b1} — active, but its worker is gone`);
    expect(shown.stdout).toContain(`still on this machine: worktree ${state.worktree}`);
    // The agent's container is still up, found by the job's label, with the command that removes it.
    expect(shown.stdout).toContain(`still on this machine: container intutic-chaos-${b1}-agent (running, Up `);
    expect(shown.stdout).toContain(`; remove: docker rm -f intutic-chaos-${b1}-agent`);
    expect(shown.stdout).not.toContain('still on this machine: proxy process');

    // A new worker fails the job as stalled (never re-running it), cleans up and the run is scored.
    const second = world.spawnCli(['chaos', 'worker']);
    try {
      await expect
        .poll(async () => JSON.parse((await world.cli(['chaos', 'status', runId, '--json'])).stdout).state, { timeout: 90_000, interval: 1000 })
        .toBe('finished');
      const jobs = await inspectJobs(world, runId);
      expect(jobs[0]).toMatchObject({ id: b1, state: 'failed', orphaned: false });
      expect(jobs[0]!.failed_reason).toContain('its worker stopped in the middle of it');
      expect(jobs[0]!.logs.filter((l) => l.includes('agent: sh -c'))).toHaveLength(1);
      const text = (await world.cli(['chaos', 'inspect', runId])).stdout;
      expect(text).toContain(`${b1} — failed`);
      expect(text).not.toContain('still on this machine');

      const report = readReportFile(out);
      expect(report.verdict).toBe('aborted');
      expect(report.repetitions[0]).toMatchObject({ status: 'failed', kind: 'baseline', index: 1 });
      expect(report.repetitions[0]!.error).toContain('its worker stopped in the middle of it');
      expect(report.skipped).toEqual([{ index: 1, kind: 'faulted', reason: expect.stringContaining(b1) }]);
      expect(second.output()).toContain(`cleaned up after ${b1}, whose worker is gone`);
      // It fails the stalled job without starting it again, and does not say it started it.
      expect(second.output()).toContain(`failed ${b1}:`);
      expect(second.output()).not.toContain(`started ${b1}`);

      // Nothing of the run remains, and the project is as it was.
      expect(containersOf(b1)).toBe('');
      expect(processAlive(state.proxy.pid)).toBe(false);
      expect(existsSync(state.worktree)).toBe(false);
      expect(git('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
      expect(git('status', '--porcelain')).toBe('');
      expect(git('rev-parse', 'HEAD')).toBe(head);
      // The dead job's events were kept next to the report.
      expect(existsSync(report.repetitions[0]!.artifacts.events)).toBe(true);
    } finally {
      second.kill('SIGTERM');
      const [code] = (await once(second, 'exit')) as [number | null];
      expect(code).toBe(0);
    }
  }, 300_000);
});
