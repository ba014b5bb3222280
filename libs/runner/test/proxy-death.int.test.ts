// Our own failure: the repetition's proxy dies while real Claude Code runs in the sandbox, driven by
// the scripted model. The runner notices the proxy's exit itself (not through the agent's failing
// calls): it stops the sandbox at once, skips verify, and fails the repetition with the proxy's last
// words, in the report and in `chaos inspect`. A runner error stops the run (aborted, exit 1);
// nothing is left running, and the worker goes on to the next run.
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '@intutic/errors';
import { dockerRequirement, redisRequirement, requireOrSkip } from '@intutic/testkit';
import { bashRunning, claudeAgent, claudeImage, ENDED_ON_ITS_OWN, oneCommandScript } from './fixtures/claude.ts';
import { buildCli, createWorld, type World } from './fixtures/harness.ts';
import { inspectJobs, processAlive, readReportFile } from './fixtures/reports.ts';

const ok = requireOrSkip('proxy death', await redisRequirement()) && requireOrSkip('proxy death', dockerRequirement());

/** The model's last turn, which Claude Code never gets to. */
const FINISHED_SCRIPT = 'FINISHED-THE-SCRIPT';
const VERIFY_RAN = 'VERIFY-RAN';
/** The first turn's command: it runs until something stops it (the sandbox going down). */
const LONG_CHECK = 'tail -f /dev/null';

let world: World;
let image: string;
beforeAll(async () => {
  if (!ok) return;
  buildCli();
  image = await claudeImage();
  world = await createWorld('proxy-death');
  world.model.setScript(oneCommandScript('proxy death: one long command, then a last word the agent never gets to', LONG_CHECK, FINISHED_SCRIPT));
}, 1_800_000);
afterAll(async () => {
  await world?.close();
});

const containersOfRun = (runId: string) => execFileSync('docker', ['ps', '-aq', '--filter', `label=intutic.chaos.run=${runId}`], { encoding: 'utf8' }).trim();
const isMainTurn = (body: unknown) => Array.isArray((body as { tools?: unknown })?.tools) && (body as { tools: unknown[] }).tools.length > 0;
const carriesToolResult = (body: unknown) => JSON.stringify(body).includes('"type":"tool_result"');

/** Processes whose command line names the run (its repetitions' proxies name their job directories). */
function processesOfRun(runId: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(runId);
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

describe.skipIf(!ok)("the repetition's proxy dies while Claude Code runs", () => {
  it("stops the repetition at once with the proxy's last words; the run is aborted, nothing is left, the worker goes on", async () => {
    const worker = world.spawnCli(['chaos', 'worker']);
    let run: ReturnType<World['spawnCli']> | undefined;
    try {
      await expect.poll(() => worker.output(), { timeout: 60_000 }).toContain('worker ready');
      const experiment = world.experiment('registry-down', {
        agent: claudeAgent("Run the project's long check."),
        verify: `echo ${VERIFY_RAN}`,
        repeat: 1,
      });
      run = world.spawnCli(['chaos', 'run', experiment, '--sandbox-image', image, '--out', join(world.root, 'proxy-death.json')]);
      const runExit = once(run, 'exit') as Promise<[number | null]>;
      await expect.poll(() => /run (\S+):/.exec(run!.output())?.[1], { timeout: 60_000 }).toBeTruthy();
      const runId = /run (\S+):/.exec(run.output())![1]!;
      const b1 = `${runId}-b1`;

      // The agent is mid-script: the model got its first turn, and its gate let the long command run.
      await expect.poll(() => world.model.requests.some((r) => r.api === 'anthropic' && isMainTurn(r.body)), { timeout: 180_000, interval: 250 }).toBe(true);
      const statePath = join(world.home, '.intutic', 'chaos', 'jobs', b1, 'state.json');
      const state = JSON.parse(readFileSync(statePath, 'utf8')) as { proxy: { pid: number }; worktree: string };
      await expect.poll(() => bashRunning(world, b1), { timeout: 120_000, interval: 250 }).toBe(true);
      expect(processAlive(state.proxy.pid)).toBe(true);

      process.kill(state.proxy.pid, 'SIGKILL');
      const [code] = await runExit;
      const output = run.output();
      expect(code, output).toBe(EXIT.aborted);
      expect(output).toContain("runner error: the repetition's proxy exited (signal SIGKILL) while the repetition ran");
      expect(output).not.toMatch(/^\s+at .+[(:]\d+/m);

      // The report: the baseline failed with the proxy's last words; the faulted one never ran.
      const report = readReportFile(join(world.root, 'proxy-death.json'));
      expect(report.verdict).toBe('aborted');
      expect(report.verdict_reason).toContain("a runner error in baseline repetition 1: the repetition's proxy exited (signal SIGKILL)");
      expect(report.repetitions).toHaveLength(1);
      const [rep] = report.repetitions;
      expect(rep!.error).toMatch(/^the repetition's proxy exited \(signal SIGKILL\) while the repetition ran\n/);
      expect(rep!.error).toContain(`its output (${join(rep!.artifacts.dir, 'proxy.stdout.txt')}) ended with:\n`);
      expect(rep!.error).toMatch(/\n {4}intutic proxy listening on http:\/\//);
      expect(rep!.error).toContain(`its log (${rep!.artifacts.proxy_log}) ended with:`);
      expect(rep!.abort).toBeNull();
      expect(report.skipped).toEqual([{ index: 1, kind: 'faulted', reason: expect.stringContaining("the repetition's proxy exited (signal SIGKILL)") }]);

      // Stopped by the runner because the proxy died, before the agent could go on: the command's
      // result never reached the model, Claude Code did not end by itself, and verify never ran.
      const [job] = await inspectJobs(world, runId);
      const logAt = (pattern: RegExp) => job!.logs.findIndex((l) => pattern.test(l));
      expect(logAt(/runner error, stopping the sandbox: the repetition's proxy exited \(signal SIGKILL\)/)).toBeGreaterThan(-1);
      expect(logAt(/runner error, stopping the sandbox/)).toBeLessThan(logAt(/agent exited .* \(stopped: its proxy died\)/));
      expect(logAt(/verify exited/)).toBe(-1);
      expect(world.model.requests.some((r) => carriesToolResult(r.body))).toBe(false);
      const agentOut = readFileSync(rep!.artifacts.agent_output, 'utf8');
      expect(agentOut).not.toContain(ENDED_ON_ITS_OWN);
      expect(agentOut).not.toContain(FINISHED_SCRIPT);
      expect(rep!.verify_exit_code).toBeNull();
      expect(existsSync(rep!.artifacts.verify_output) ? readFileSync(rep!.artifacts.verify_output, 'utf8') : '').not.toContain(VERIFY_RAN);

      // `chaos inspect` says the same.
      const shown = (await world.cli(['chaos', 'inspect', runId])).stdout;
      expect(shown).toContain("error: the repetition's proxy exited (signal SIGKILL) while the repetition ran");
      expect(shown).not.toContain('still on this machine');

      // Nothing of the run is left running or on disk.
      expect(containersOfRun(runId)).toBe('');
      expect(processesOfRun(runId)).toEqual([]);
      expect(existsSync(state.worktree)).toBe(false);
      expect(existsSync(join(world.home, '.intutic', 'chaos', 'jobs', b1))).toBe(false);

      // The worker lived through it and serves the next run.
      expect(worker.exitCode).toBeNull();
      const next = await world.cli([
        'chaos',
        'run',
        world.experiment('registry-down', { agent: 'true', verify: 'true', repeat: 1 }),
        '--sandbox-image',
        image,
        '--out',
        join(world.root, 'after.json'),
      ]);
      expect(next.stderr).not.toContain('no worker is online');
      expect(readReportFile(join(world.root, 'after.json')).repetitions.map((r) => [r.kind, r.error])).toEqual([
        ['baseline', null],
        ['faulted', null],
      ]);
    } finally {
      for (const child of [run, worker]) {
        if (child && child.exitCode === null && child.signalCode === null) {
          child.kill('SIGTERM');
          await once(child, 'exit');
        }
      }
    }
    expect(worker.exitCode, worker.output()).toBe(0);
  }, 600_000);
});
