// Our own fault: the container engine restarted in the middle of a run, while real Claude Code
// (driven by the scripted model) runs a long command in the sandbox. The repetition whose sandbox
// the restart killed fails with a message that says the engine went away (never a bare socket
// error); the worker survives and goes on once the engine answers again; the run ends, nothing ran
// twice, and nothing of the run is left: no container, proxy process or worktree.
//
// This stops the machine's dockerd (every container on it stops), so it runs only where that is
// allowed: INTUTIC_TEST_RESTART_ENGINE=1 (set by .ci/run) and a dockerd this test can start again
// the way scripts/setup/engine.sh does.
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerRequirement, redisRequirement, REPO_ROOT, requireOrSkip, type Requirement } from '@intutic/testkit';
import { bashRunning, claudeAgent, claudeImage, oneCommandScript } from './fixtures/claude.ts';
import { buildCli, createWorld, REGISTRY_HOST, type World } from './fixtures/harness.ts';
import { inspectJobs, processAlive as alive, readReportFile } from './fixtures/reports.ts';

const PID_FILE = '/var/run/docker.pid';

function restartAllowed(): Requirement {
  if (process.env.INTUTIC_TEST_RESTART_ENGINE !== '1') {
    return { ok: false, reason: "it stops this machine's dockerd and every container on it; set INTUTIC_TEST_RESTART_ENGINE=1 to allow it (.ci/run does)" };
  }
  if (!existsSync(PID_FILE)) return { ok: false, reason: `no ${PID_FILE}: this dockerd is not one the test can stop and start again` };
  return { ok: true, reason: '' };
}

const ok =
  requireOrSkip('engine restart', await redisRequirement()) &&
  requireOrSkip('engine restart', dockerRequirement()) &&
  requireOrSkip('engine restart', restartAllowed());

let world: World;
let image: string;
beforeAll(async () => {
  if (!ok) return;
  buildCli();
  image = await claudeImage();
  world = await createWorld('engine-restart');
  world.model.setScript(oneCommandScript('engine restart: a long check the engine goes away in the middle of', 'tail -f /dev/null', 'The long check is done.'));
}, 1_800_000);
afterAll(async () => {
  // Whatever happened above, the next suites need an engine.
  if (ok) startEngine();
  await world?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const engineAnswers = (): boolean => dockerRequirement().ok;

async function stopEngine(): Promise<void> {
  const pid = Number(readFileSync(PID_FILE, 'utf8').trim());
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 120 && alive(pid); i++) await sleep(500);
  if (alive(pid)) throw new Error(`dockerd (pid ${pid}) did not stop within 60 s`);
}

function startEngine(): void {
  if (!engineAnswers()) execFileSync('bash', [join(REPO_ROOT, 'scripts/setup/engine.sh')], { stdio: 'inherit', timeout: 300_000 });
}

const containersOfRun = (runId: string) =>
  execFileSync('docker', ['ps', '-aq', '--filter', 'label=intutic.chaos.job'], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .filter((id) =>
      execFileSync('docker', ['inspect', '--format', '{{index .Config.Labels "intutic.chaos.job"}}', id], { encoding: 'utf8' }).startsWith(runId),
    );

describe.skipIf(!ok)('the container engine restarted mid-repetition', () => {
  it('fails that repetition saying the engine went away; the worker goes on; nothing is left', async () => {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: world.project, encoding: 'utf8' });
    const worker = world.spawnCli(['chaos', 'worker']);
    try {
      await expect.poll(() => worker.output(), { timeout: 60_000 }).toContain('worker ready');
      const file = world.experiment('registry-down', { agent: claudeAgent("Run the project's long check."), verify: 'true', repeat: 1 });
      const out = join(world.root, 'engine-restart.json');
      const run = world.spawnCli(['chaos', 'run', file, '--sandbox-image', image, '--out', out]);
      // Listened to from the start: the run may well end while the engine is being started again.
      const runExit = once(run, 'exit') as Promise<[number | null]>;
      await expect.poll(() => /run (\S+):/.exec(run.output())?.[1], { timeout: 60_000 }).toBeTruthy();
      const runId = /run (\S+):/.exec(run.output())![1]!;
      const b1 = `${runId}-b1`;
      // Claude Code is running the long check: its gate let the command run.
      await expect.poll(() => bashRunning(world, b1), { timeout: 180_000, interval: 250 }).toBe(true);

      await stopEngine();
      await sleep(2000);
      startEngine();

      const [code] = await Promise.race([runExit, sleep(300_000).then((): [null] => [null])]);
      const output = run.output();
      expect(code, output).toBe(1);
      expect(output).not.toMatch(/^\s+at /m);

      const report = readReportFile(out);
      expect(report.verdict).toBe('aborted');
      const first = report.repetitions.find((r) => r.kind === 'baseline' && r.index === 1)!;
      expect(first.error).toMatch(/container engine .* stopped answering/);
      expect(output).toContain('stopped answering');

      // Each repetition ran at most once; the worker lived through the outage.
      for (const job of await inspectJobs(world, runId)) {
        expect(job.logs.filter((l) => l.includes('agent: sh -c')).length, job.id).toBeLessThanOrEqual(1);
      }
      expect(worker.exitCode).toBeNull();
      expect((await inspectJobs(world, runId)).find((j) => j.id === b1)?.logs.some((l) => l.includes('agent: sh -c'))).toBe(true);

      // Nothing of the run is left once the worker has swept, and the project is as it was.
      await expect.poll(() => containersOfRun(runId), { timeout: 90_000, interval: 2000 }).toEqual([]);
      const jobsDir = join(world.home, '.intutic', 'chaos', 'jobs');
      for (const dir of existsSync(jobsDir) ? readdirSync(jobsDir).filter((d) => d.startsWith(runId)) : []) {
        if (!existsSync(join(jobsDir, dir, 'state.json'))) continue;
        const state = JSON.parse(readFileSync(join(jobsDir, dir, 'state.json'), 'utf8')) as { proxy: { pid: number } | null; worktree: string | null };
        if (state.proxy) expect(alive(state.proxy.pid), `${dir}'s proxy`).toBe(false);
        if (state.worktree) expect(existsSync(state.worktree), `${dir}'s worktree`).toBe(false);
      }
      expect(git('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
      expect(git('status', '--porcelain')).toBe('');

      // The worker serves the next run as if nothing happened.
      world.model.setScript(
        oneCommandScript(
          'engine restart: the next run, a short check',
          `curl -sS http://${REGISTRY_HOST}/lodash; echo short check passed`,
          'The short check passed.',
        ),
      );
      const next = await world.cli([
        'chaos',
        'run',
        world.experiment('registry-down', { agent: claudeAgent('Run the short check.'), verify: 'true', repeat: 1 }),
        '--sandbox-image',
        image,
        '--out',
        join(world.root, 'after.json'),
      ]);
      expect(next.code, next.stderr).toBe(0);
      const after = readReportFile(join(world.root, 'after.json'));
      expect(after.verdict).toBe('scored');
      expect(after.repetitions.map((r) => [r.kind, r.error])).toEqual([
        ['baseline', null],
        ['faulted', null],
      ]);
    } finally {
      worker.kill('SIGTERM');
      await once(worker, 'exit');
    }
  }, 900_000);
});
