// Two CLIs following the same run: a run enqueued with `chaos run --detach` and run by a standalone
// worker, followed by several `chaos status <run> --follow` at once. Each shows the live progress
// and ends with the run's summary and exit code, as `chaos run` would; the run ran each repetition
// once; a follower stopped with Ctrl-C exits 130 and leaves the run alone.
import { once } from 'node:events';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerRequirement, redisRequirement, requireOrSkip } from '@intutic/testkit';
import { renderSummary } from '@intutic/report';
import { nodeSandboxWorld, NODE_IMAGE as IMAGE, REGISTRY_HOST, type CliResult, type World } from './fixtures/harness.ts';
import { inspectJobs, readReportFile } from './fixtures/reports.ts';

const ok = requireOrSkip('chaos followers', await redisRequirement()) && requireOrSkip('chaos followers', dockerRequirement());
// A few seconds of visible work before the registry agent, so followers attach in the middle of it.
const SLOW_AGENT = `for i in 1 2 3 4 5 6 7 8 9 10; do echo "still working ($i)"; sleep 0.5; done; sh agents/registry.sh careful ${REGISTRY_HOST}`;

let world: World;
let worker: ChildProcess & { output: () => string };
beforeAll(async () => {
  if (!ok) return;
  world = await nodeSandboxWorld('followers');
  worker = world.spawnCli(['chaos', 'worker']);
  await waitForOutput(worker, 'worker ready', 60_000);
}, 1_800_000);
afterAll(async () => {
  if (worker && worker.exitCode === null) {
    worker.kill('SIGTERM');
    await once(worker, 'exit');
  }
  await world?.close();
});

/** expect.poll only works inside a test; this waits in a hook. */
async function waitForOutput(child: ChildProcess & { output: () => string }, text: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!child.output().includes(text)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no "${text}" from the worker:\n${child.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Enqueue a run with --detach; its id and report path. */
async function enqueue(changes: Record<string, unknown>, name: string): Promise<{ runId: string; out: string }> {
  const out = join(world.root, `${name}.json`);
  const result = await world.cli(['chaos', 'run', world.experiment('registry-down', changes), '--sandbox-image', IMAGE, '--out', out, '--detach']);
  expect(result.code, result.stderr).toBe(0);
  const runId = /run (\S+):/.exec(result.stderr)![1]!;
  expect(result.stderr).toContain(`follow it with: intutic chaos status ${runId} --follow`);
  return { runId, out };
}

/** What a follower printed from the summary's first line on. */
const summaryOf = (result: CliResult, runId: string) => result.stdout.slice(result.stdout.indexOf(`registry-down — run ${runId}`));
const count = (text: string, part: string) => text.split(part).length - 1;

describe.skipIf(!ok)('chaos status --follow', () => {
  it('refuses --json and a missing run id as usage errors; an unknown run gets the usual error', async () => {
    const json = await world.cli(['chaos', 'status', 'some-run', '--follow', '--json']);
    expect(json.code).toBe(64);
    expect(json.stderr).toContain('--follow and --json cannot be combined');
    const noRun = await world.cli(['chaos', 'status', '--follow']);
    expect(noRun.code).toBe(64);
    expect(noRun.stderr).toContain('--follow needs a run id');
    const unknown = await world.cli(['chaos', 'status', 'no-such-run', '--follow']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('no run no-such-run in the queue');
    for (const r of [json, noRun, unknown]) expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('two followers show the same run live and end with its summary and exit code; Ctrl-C on a third only stops it', async () => {
    const { runId, out } = await enqueue({ agent: SLOW_AGENT, repeat: 1 }, 'followed');
    const follow = ['chaos', 'status', runId, '--follow'];
    const interrupted = world.spawnCli(follow);
    const followers = Promise.all([world.cli(follow), world.cli(follow)]);

    // The third follower is stopped in the middle of the run.
    await expect.poll(() => interrupted.output(), { timeout: 60_000 }).toContain('still working (2)');
    interrupted.kill('SIGINT');
    const [interruptedCode] = (await once(interrupted, 'exit')) as [number | null];
    expect(interruptedCode, interrupted.output()).toBe(130);
    expect(interrupted.output()).toContain(`stopped following run ${runId}: the run goes on. Follow it again with: intutic chaos status ${runId} --follow`);
    expect(interrupted.output()).not.toContain('cancelling');
    expect(interrupted.output()).not.toContain('verdict:');

    const results = await followers;
    const report = readReportFile(out);
    expect(report.verdict).toBe('scored');
    expect(report.score).toBeCloseTo(88.888889, 5);
    expect(report.repetitions.map((r) => [r.kind, r.agent_exit_code, r.verify_exit_code, r.error])).toEqual([
      ['baseline', 0, 0, null],
      ['faulted', 1, 1, null],
    ]);
    const expectedSummary = renderSummary(report);
    for (const r of results) {
      expect(r.code, r.stderr).toBe(report.exit_code);
      expect(r.stderr).toContain(`following run ${runId}`);
      // Live progress, each message shown once: the faulted repetition started after both attached.
      expect(count(r.stderr, `▶ faulted repetition 1/1 (${runId}-f1)`)).toBe(1);
      // Joined during the baseline: its header and proxy line too, from the record or live, once each.
      expect(count(r.stderr, `run ${runId}: registry-down, 1 baseline then 1 faulted`)).toBe(1);
      expect(count(r.stderr, `▶ baseline repetition 1/1 (${runId}-b1)`)).toBe(1);
      expect(count(r.stderr, 'with no plan (baseline)')).toBe(1);
      expect(count(r.stderr, '■ baseline repetition 1: agent exit 0, verify exit 0')).toBe(1);
      expect(count(r.stderr, '■ faulted repetition 1: agent exit 1, verify exit 1')).toBe(1);
      expect(r.stdout).toContain('still working (10)');
      expect(r.stdout).toContain('npm install lodash failed');
      expect(summaryOf(r, runId)).toBe(expectedSummary);
    }
    expect(results[0].code).toBe(results[1].code);

    // Nobody cancelled it, and every repetition ran exactly once.
    const status = JSON.parse((await world.cli(['chaos', 'status', runId, '--json'])).stdout) as { state: string; cancel_reason: string | null };
    expect(status).toMatchObject({ state: 'finished', cancel_reason: null });
    const jobs = (await inspectJobs(world, runId)).filter((j) => j.id !== `${runId}-score`);
    expect(jobs.map((j) => [j.id, j.state])).toEqual([
      [`${runId}-b1`, 'completed'],
      [`${runId}-f1`, 'completed'],
    ]);
    for (const job of jobs)
      expect(
        job.logs.filter((l) => l.includes('agent: sh -c')),
        job.id,
      ).toHaveLength(1);

    // Once the run is over, following it shows the whole run as recorded, then the summary at once.
    const late = await world.cli(follow, { timeoutMs: 30_000 });
    expect(late.code, late.stderr).toBe(report.exit_code);
    const lines = late.stderr.split('\n');
    const at = (part: string) => lines.findIndex((l) => l.includes(part));
    const order = [
      `run ${runId}: registry-down, 1 baseline then 1 faulted repetitions (2)`,
      `report: ${out}`,
      `▶ baseline repetition 1/1 (${runId}-b1)`,
      'with no plan (baseline)',
      '■ baseline repetition 1: agent exit 0, verify exit 0',
      `▶ faulted repetition 1/1 (${runId}-f1)`,
      'with the plan',
      '■ faulted repetition 1: agent exit 1, verify exit 1',
    ].map(at);
    expect(order, late.stderr).toEqual([...order].sort((a, b) => a - b));
    expect(
      order.every((i) => i >= 0),
      late.stderr,
    ).toBe(true);
    expect(count(late.stderr, '▶')).toBe(2);
    expect(summaryOf(late, runId)).toBe(expectedSummary);
  }, 300_000);

  it("exits with the run's own code: 2 for a run whose baseline fails verify", async () => {
    const { runId, out } = await enqueue({ agent: 'echo quick', verify: 'false', repeat: 1 }, 'invalid');
    const followed = await world.cli(['chaos', 'status', runId, '--follow']);
    const report = readReportFile(out);
    expect(report.verdict).toBe('invalid');
    expect(followed.code, followed.stderr).toBe(2);
    expect(followed.stdout).toContain('verdict: invalid');
    expect(summaryOf(followed, runId)).toBe(renderSummary(report));
  }, 180_000);
});
