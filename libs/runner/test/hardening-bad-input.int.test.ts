// Bad repetitions (issue 10, item 1): an agent command that does not exist, one that prints a
// gigabyte, a fork bomb, one that never exits and ignores SIGTERM, a verify that hangs, an image
// without sh. Each ends with a clear record in the report and nothing left behind: no container, no
// worktree, no proxy process.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerRequirement, redisRequirement, requireOrSkip } from '@intutic/testkit';
import type { Report } from '@intutic/report';
import { OUTPUT_CAP_BYTES } from '../src/output-cap.ts';
import { nodeSandboxWorld, NODE_IMAGE as IMAGE, type World } from './fixtures/harness.ts';
import { readReportFile } from './fixtures/reports.ts';

const ok = requireOrSkip('hardening bad input', await redisRequirement()) && requireOrSkip('hardening bad input', dockerRequirement());
const BARE_IMAGE = 'intutic-test/bare:latest';
const NO_SH_IMAGE = 'intutic-test/no-sh:latest';

let world: World;
beforeAll(async () => {
  if (!ok) return;
  world = await nodeSandboxWorld('bad-input');
  // An image with one file and nothing else; the sandbox image with every sh removed (its entrypoint is bash).
  execFileSync('sh', ['-c', `d=$(mktemp -d) && echo hi > "$d/hello" && tar -C "$d" -c hello | docker import - ${BARE_IMAGE} >/dev/null && rm -rf "$d"`]);
  execFileSync('docker', ['build', '-q', '-t', NO_SH_IMAGE, '-'], {
    input: `FROM ${IMAGE}\nUSER root\nRUN rm -f /bin/sh /usr/bin/sh /bin/dash /usr/bin/dash\n`,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
}, 1_800_000);
afterAll(async () => {
  if (ok) execFileSync('docker', ['rmi', '-f', BARE_IMAGE, NO_SH_IMAGE], { stdio: 'ignore' });
  await world?.close();
});

async function run(name: string, changes: Record<string, unknown>, image = IMAGE) {
  const file = world.experiment('registry-down', { repeat: 1, ...changes });
  const out = join(world.root, `${name}.json`);
  const result = await world.cli(['chaos', 'run', file, '--sandbox-image', image, '--out', out], { timeoutMs: 300_000 });
  return { ...result, out };
}

/** No container of the run, no worktree of any repetition, no proxy (its argv names the job's dir). */
function expectNothingLeft(report: Report): void {
  expect(execFileSync('docker', ['ps', '-aq', '--filter', `label=intutic.chaos.run=${report.run.id}`], { encoding: 'utf8' }).trim()).toBe('');
  const processes = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
  for (const rep of report.repetitions) {
    expect(existsSync(join(world.home, '.intutic', 'chaos', 'jobs', rep.run_id, 'worktree'))).toBe(false);
    expect(processes).not.toContain(rep.run_id);
  }
  const worktrees = execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: world.project, encoding: 'utf8' });
  expect(worktrees.match(/^worktree /gm)).toHaveLength(1);
}

const ABORT_AFTER = (seconds: number) => ['destructive_attempt', { cost_usd_above: 2 }, { wall_clock_s_above: seconds }];

describe.skipIf(!ok)('bad repetitions end cleanly', () => {
  it('an agent command that does not exist: exit 127 recorded with the shell’s words, verify still runs', async () => {
    const result = await run('missing-agent', { agent: 'no-such-agent-xyz --do-it', verify: 'true' });
    const report = readReportFile(result.out);
    expect(report.repetitions.map((r) => [r.kind, r.agent_exit_code, r.verify_exit_code, r.error])).toEqual([
      ['baseline', 127, 0, null],
      ['faulted', 127, 0, null],
    ]);
    expect(readFileSync(report.repetitions[0]!.artifacts.agent_stderr, 'utf8')).toMatch(/no-such-agent-xyz: .*not found/);
    expectNothingLeft(report);
  });

  it('an agent that prints a gigabyte: the artifact stops at the cap with a note, the run completes', async () => {
    const result = await run('gigabyte', { agent: 'head -c 1073741824 /dev/zero | tr "\\000" x; echo done >&2', verify: 'true' });
    const report = readReportFile(result.out);
    expect(report.repetitions).toHaveLength(2);
    for (const rep of report.repetitions) {
      expect(rep).toMatchObject({ agent_exit_code: 0, verify_exit_code: 0, error: null });
      const size = statSync(rep.artifacts.agent_output).size;
      expect(size).toBeGreaterThanOrEqual(OUTPUT_CAP_BYTES);
      expect(size).toBeLessThan(OUTPUT_CAP_BYTES + 1024);
      const tail = readFileSync(rep.artifacts.agent_output).subarray(-300).toString();
      expect(tail).toContain(`agent stdout: 16 MiB kept, ${1073741824 - OUTPUT_CAP_BYTES} more bytes dropped (the output cap)`);
      expect(readFileSync(rep.artifacts.agent_stderr, 'utf8')).toBe('done\n');
    }
    expect(report.run.warnings).toContain(
      `baseline repetition 1: agent stdout: 16 MiB kept, ${1073741824 - OUTPUT_CAP_BYTES} more bytes dropped (the output cap)`,
    );
    // The live view was capped too: the terminal did not get a gigabyte.
    expect(result.stdout.length).toBeLessThan(3 * OUTPUT_CAP_BYTES);
    expectNothingLeft(report);
  }, 300_000);

  it('a fork bomb: the pids limit holds, the wall clock stops it, the run completes', async () => {
    // 20 s: the clock runs from before the container starts, and the bomb must reach the 2048-pid
    // limit (its fork failures are the proof) on a loaded machine; 8 s was sometimes not enough.
    // The agent's own shell forks once, before the bomb exists, then execs its sleep: dash exits on a
    // fork it cannot make, so a shell that forked after the limit was reached would end the agent early.
    const result = await run('fork-bomb', { agent: '(f() { f | f & }; f) & exec sleep 600', verify: 'true', abort: ABORT_AFTER(20) });
    expect(result.code, result.stderr).toBe(1);
    const report = readReportFile(result.out);
    expect(report.verdict).toBe('aborted');
    expect(report.repetitions[0]).toMatchObject({ kind: 'baseline', abort: { condition: 'wall_clock_s_above' }, verify_exit_code: null });
    expect(report.repetitions[0]!.duration_s, 'budget: the 20 s wall-clock abort ends it long before its sleep 600').toBeLessThan(60);
    expect(readFileSync(report.repetitions[0]!.artifacts.agent_stderr, 'utf8')).toMatch(/fork|Resource temporarily unavailable/i);
    expectNothingLeft(report);
  });

  it('an agent that never exits and ignores SIGTERM: the wall clock abort stops it', async () => {
    const result = await run('never-exits', { agent: "trap '' TERM INT; while :; do sleep 1; done", verify: 'true', abort: ABORT_AFTER(4) });
    expect(result.code, result.stderr).toBe(1);
    const report = readReportFile(result.out);
    expect(report.repetitions[0]).toMatchObject({ abort: { condition: 'wall_clock_s_above' }, verify_exit_code: null });
    expect(report.repetitions[0]!.duration_s, 'budget: the 4 s wall-clock abort ends it though it ignores SIGTERM').toBeLessThan(30);
    expectNothingLeft(report);
  });

  it('a verify that hangs: stopped at the worker’s verify timeout and reported as the repetition’s error', async () => {
    world.env.INTUTIC_CHAOS_VERIFY_TIMEOUT_S = '3';
    try {
      const result = await run('verify-hangs', { agent: 'true', verify: 'echo checking; sleep 600' });
      expect(result.code, result.stderr).toBe(1);
      const report = readReportFile(result.out);
      expect(report.repetitions[0]!.error).toBe('verify did not finish within 3 s (INTUTIC_CHAOS_VERIFY_TIMEOUT_S on the worker sets the limit)');
      expect(report.repetitions[0]!.duration_s, 'budget: the 3 s verify timeout ends it long before its sleep 600').toBeLessThan(30);
      expect(readFileSync(report.repetitions[0]!.artifacts.verify_output, 'utf8')).toContain('checking');
      expectNothingLeft(report);
    } finally {
      delete world.env.INTUTIC_CHAOS_VERIFY_TIMEOUT_S;
    }
  });

  it('an image not built FROM intutic/sandbox (no entrypoint, no sh): the repetition fails saying so', async () => {
    const result = await run('bare-image', { agent: 'true', verify: 'true' }, BARE_IMAGE);
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr + result.stdout).not.toMatch(/\n\s+at .+:\d+:\d+/);
    const report = readReportFile(result.out);
    expect(report.repetitions[0]!.error).toMatch(/^the sandbox container did not start: [\s\S]*is intutic-test\/bare:latest built FROM intutic\/sandbox/);
    expect(report.skipped.map((s) => s.kind)).toEqual(['faulted']);
    expectNothingLeft(report);
  });

  it('a sandbox image without sh: the agent and verify fail with exit 127 and the reason in their output', async () => {
    const result = await run('no-sh', { agent: 'true', verify: 'true' }, NO_SH_IMAGE);
    expect(result.code, result.stderr).toBe(2);
    const report = readReportFile(result.out);
    expect(report.repetitions.map((r) => [r.agent_exit_code, r.verify_exit_code, r.error])).toEqual([[127, 127, null]]);
    expect(readFileSync(report.repetitions[0]!.artifacts.agent_stderr, 'utf8')).toMatch(/failed to execute sh: No such file or directory/);
    expect(result.stderr + result.stdout).toMatch(/the run is invalid — baseline repetition 1 failed verify \(exit 127\)/);
    expectNothingLeft(report);
  });
});
