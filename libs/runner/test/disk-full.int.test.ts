// Disk full (issue 10, item 2): the report (--out) and its artifacts directory sit on a small tmpfs.
// The agent is real Claude Code, whose last answer (from the scripted model) is long: the baseline's
// artifacts fit; the faulted repetition's agent prints more than is left. The run
// must not hang: that repetition fails with a message naming the directory and saying the disk is
// full (no stack trace), scoring cannot write the report and says the same, `chaos run` exits 1
// (aborted: a runner error stopped a run that had started), no half-written report is left, nothing
// of the repetitions remains (containers, proxies, worktrees), and the standalone worker goes on to
// run the next run once space is freed.
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '@intutic/errors';
import { dockerRequirement, redisRequirement, type Requirement, requireOrSkip, scratchDir } from '@intutic/testkit';
import { claudeAgent, claudeImage, oneCommandScript } from './fixtures/claude.ts';
import { buildCli, createWorld, REGISTRY_HOST, type World } from './fixtures/harness.ts';
import { inspectJobs, readReportFile, processAlive } from './fixtures/reports.ts';

/** What the noisy agent prints per repetition, and a disk that holds one repetition of it but not two. */
const NOISE_KIB = 256;
const DISK_KIB = 448;
const NOISE_LINE = 'a noisy agent prints this line again and again, and it all lands in agent.stdout.txt\n';
/** Claude Code's last answer: NOISE_KIB of lines, then a last line (its token count kept small, under the run's cost cap). */
const NOISY_ANSWER = `${NOISE_LINE.repeat(Math.ceil((NOISE_KIB * 1024) / NOISE_LINE.length))}Done printing.`;

/** Mount the small disk now: that is the check that this machine lets the test mount one. */
function mountTmpfs(dir: string): Requirement {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${DISK_KIB}k`, 'tmpfs', dir], { stdio: 'pipe' });
    return { ok: true, reason: '' };
  } catch (error) {
    const why = (error as { stderr?: Buffer }).stderr?.toString().trim() || (error as Error).message;
    return { ok: false, reason: `cannot mount a tmpfs to fill up (needs root or CAP_SYS_ADMIN): ${why}` };
  }
}

const disk = scratchDir('intutic-disk-full-');
const mounted = requireOrSkip('chaos disk full', mountTmpfs(disk));
const ok = mounted && requireOrSkip('chaos disk full', await redisRequirement()) && requireOrSkip('chaos disk full', dockerRequirement());

let world: World;
let image: string;
beforeAll(async () => {
  if (!ok) return;
  buildCli();
  image = await claudeImage();
  world = await createWorld('disk-full');
}, 1_800_000);
afterAll(async () => {
  try {
    await world?.close();
  } finally {
    // A busy mount (something of a failed run still holds a file there) is detached lazily.
    if (mounted) execFileSync('sh', ['-c', 'umount "$1" || umount -l "$1"', 'umount', disk], { stdio: 'inherit' });
    rmSync(disk, { recursive: true, force: true });
  }
});

const git = (...args: string[]) => execFileSync('git', args, { cwd: world.project, encoding: 'utf8' });
const containersOfRun = (runId: string) => execFileSync('docker', ['ps', '-aq', '--filter', `label=intutic.chaos.run=${runId}`], { encoding: 'utf8' }).trim();
const STACK_LINE = /^\s+at .+[(:]\d+/m;

describe.skipIf(!ok)('the disk holding the report fills up during a run', () => {
  it('fails the repetition and the scoring with a clear message, leaves nothing behind, and the worker runs the next run', async () => {
    const worker = world.spawnCli(['chaos', 'worker']);
    try {
      await expect.poll(() => worker.output(), { timeout: 60_000 }).toContain('worker ready');
      world.model.setScript(oneCommandScript('disk full: a short check, then a long answer', 'echo checked', NOISY_ANSWER, 200));
      const file = world.experiment('registry-down', { agent: claudeAgent('Check the project and print everything.'), verify: 'true', repeat: 1 });
      const out = join(disk, 'full.json');
      const artifactsDir = join(disk, 'full.artifacts');
      const result = await world.cli(['chaos', 'run', file, '--sandbox-image', image, '--out', out], { timeoutMs: 240_000 });
      const all = `${result.stdout}\n${result.stderr}`;
      // Not killed by the timeout: it ended on its own, as aborted.
      expect(result.code, all).toBe(EXIT.aborted);
      const runId = /run (\S+):/.exec(result.stderr)![1]!;
      const [b1, f1] = [`${runId}-b1`, `${runId}-f1`];

      // The faulted repetition and the scoring each say the disk is full, and where.
      const faultedDir = join(artifactsDir, 'rep-1-faulted');
      expect(result.stderr).toMatch(/■ baseline repetition 1: agent exit 0, verify exit 0/);
      expect(result.stderr).toContain(`■ faulted repetition 1: runner error: the disk is full: no space left in ${faultedDir}`);
      expect(result.stderr).toContain(`error: the run could not be scored: the disk is full: no space left in ${disk}`);
      expect(all).not.toMatch(STACK_LINE);
      expect(all).not.toContain('internal error');

      const jobs = await inspectJobs(world, runId);
      expect(jobs.map((j) => [j.id, j.state])).toEqual([
        [b1, 'completed'],
        [f1, 'completed'],
        [`${runId}-score`, 'failed'],
      ]);
      expect(jobs[2]!.failed_reason).toContain(`the disk is full: no space left in ${disk}`);
      const shown = (await world.cli(['chaos', 'inspect', runId])).stdout;
      expect(shown).toContain(`error: the disk is full: no space left in ${faultedDir}`);
      expect(shown).toMatch(new RegExp(`${runId}-score — failed\\n.*\\n  failed: the disk is full: no space left in ${disk}`));
      expect(shown).not.toMatch(STACK_LINE);
      expect(shown).not.toContain('still on this machine');

      // The faulted repetition's events could not all be copied: no half of them is kept to be scored.
      expect(existsSync(join(faultedDir, 'events.jsonl'))).toBe(false);
      // No report, not even half of one (nor its temp file); the baseline's artifacts are whole.
      expect(existsSync(out)).toBe(false);
      expect(readdirSync(disk)).toEqual(['full.artifacts']);
      expect(statSync(join(artifactsDir, 'rep-1-baseline', 'agent.stdout.txt')).size).toBeGreaterThan(NOISE_KIB * 1024);
      expect(readFileSync(join(artifactsDir, 'rep-1-baseline', 'agent.stdout.txt'), 'utf8')).toContain('Done printing.');

      // Nothing of either repetition remains: containers, proxy processes, worktrees, job directories.
      const proxyPids = jobs.slice(0, 2).map((j) => Number(/proxy \S+ \(pid (\d+)\)/.exec(j.logs.join('\n'))?.[1]));
      expect(proxyPids.every((pid) => pid > 0)).toBe(true);
      for (const pid of proxyPids) expect(processAlive(pid)).toBe(false);
      expect(containersOfRun(runId)).toBe('');
      expect(git('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
      expect(git('status', '--porcelain')).toBe('');
      for (const id of [b1, f1]) expect(existsSync(join(world.home, '.intutic', 'chaos', 'jobs', id))).toBe(false);

      // The worker is still up; once space is freed it runs the next run to a report on the same disk.
      expect(worker.exitCode).toBeNull();
      rmSync(artifactsDir, { recursive: true });
      world.model.setScript(
        oneCommandScript(
          'disk full: the next run, a short check',
          `curl -sS http://${REGISTRY_HOST}/lodash; echo short check passed`,
          'The short check passed.',
        ),
      );
      const next = world.experiment('registry-down', { agent: claudeAgent('Run the short check.'), verify: 'true', repeat: 1 });
      const nextOut = join(disk, 'next.json');
      const second = await world.cli(['chaos', 'run', next, '--sandbox-image', image, '--out', nextOut], { timeoutMs: 240_000 });
      expect(second.code, `${second.stdout}\n${second.stderr}`).toBe(EXIT.ok);
      expect(second.stderr).not.toContain('no worker is online');
      const report = readReportFile(nextOut);
      expect(report.verdict).toBe('scored');
      expect(report.repetitions.map((r) => [r.kind, r.error])).toEqual([
        ['baseline', null],
        ['faulted', null],
      ]);
      expect(worker.output()).not.toMatch(STACK_LINE);
    } finally {
      if (worker.exitCode === null && worker.signalCode === null) {
        worker.kill('SIGTERM');
        await once(worker, 'exit');
      }
      expect(worker.exitCode, worker.output()).toBe(0);
    }
  }, 600_000);
});
