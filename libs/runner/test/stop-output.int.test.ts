// A stopped repetition shows only what the command printed: stopped in each way the runner stops a
// sandbox — an abort condition met (the abort monitor reads the events file), a cancel (the monitor
// reads the cancel flag), verify's timeout, and a SIGTERM from outside (the engine or an operator
// stopping the container) — the collected stdout and stderr are exactly the command's lines, with no
// text of the entrypoint and no shell job notice ("line N: PID Killed  ( for i in … )"). The command
// leaves background jobs and a looping subshell running, which is what the entrypoint's stop kills.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventWriter } from '@intutic/events';
import { dockerRequirement, requireOrSkip, sandboxBuildEnv, scratchDir } from '@intutic/testkit';
import {
  checkEngine,
  ensureSandboxImage,
  removeSandboxContainers,
  runInSandbox,
  type Engine,
  type SandboxRunOptions,
  type SandboxRunResult,
} from '@intutic/sandbox';
import { AbortMonitor, type MonitorTrigger } from '../src/abort-monitor.ts';

const ready = requireOrSkip('stopped sandbox output', dockerRequirement());
const VERSION = (JSON.parse(readFileSync(new URL('../../../apps/cli/package.json', import.meta.url), 'utf8')) as { version: string }).version;
const testLabel = { 'dev.intutic.test': `stop-output-${process.pid}` };
const RUN_ID = 'run-stop-output';

// Known lines on both streams, then work that only a kill ends: background sleeps, a looping
// subshell, a foreground sleep. READY is the last line, so the test stops it once everything is up.
const COMMAND = [
  "printf 'out-1\\nout-2\\n'",
  "printf 'err-1\\n' >&2",
  '(for i in 1 2 3; do sleep 30; done) &',
  'sleep 45 &',
  "printf 'err-2\\n' >&2",
  'echo READY',
  'sleep 60',
].join('\n');
const EXPECTED_STDOUT = 'out-1\nout-2\nREADY\n';
const EXPECTED_STDERR = 'err-1\nerr-2\n';

function dockerKill(name: string, signal: string): Promise<void> {
  return new Promise((resolve) => execFile('docker', ['kill', '--signal', signal, name], () => resolve()));
}

describe.runIf(ready)('a stopped sandbox shows only what its command printed', () => {
  let engine: Engine;
  let image: string;
  const dirs: string[] = [];

  beforeAll(async () => {
    engine = await checkEngine();
    image = await ensureSandboxImage(engine, {
      version: VERSION,
      variant: 'base',
      env: sandboxBuildEnv(),
      onProgress: (line) => process.stderr.write(`[image] ${line}\n`),
    });
  }, 900_000);

  afterAll(async () => {
    if (engine) await removeSandboxContainers(engine, testLabel).catch(() => 0);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** A workspace with governance mounted as a repetition has it (so the seal and unseal run too) and an events file. */
  async function repetitionWorkspace(): Promise<{ workspace: string; governance: string; events: string; protection: SandboxRunOptions['protection'] }> {
    const root = scratchDir('intutic-stop-output-');
    dirs.push(root);
    const workspace = join(root, 'work');
    const governance = join(root, 'governance');
    mkdirSync(join(workspace, '.intutic', 'hooks'), { recursive: true });
    mkdirSync(join(workspace, '.intutic-chaos'), { recursive: true });
    mkdirSync(governance);
    writeFileSync(join(workspace, '.intutic', 'hooks', 'gate.mjs'), '// gate\n');
    writeFileSync(join(governance, 'plan.json'), '{}\n');
    const events = join(root, 'events.jsonl');
    writeFileSync(events, '');
    return { workspace, governance, events, protection: { governanceDir: governance, readOnly: ['.intutic/hooks'], pinned: ['.intutic-chaos'] } };
  }

  /** Runs COMMAND; `stop` is called once READY is out, with the container's name. */
  async function runAndStop(
    stop: (name: string) => void,
    extra: Partial<SandboxRunOptions> = {},
  ): Promise<{ result: SandboxRunResult; stdout: string; stderr: string }> {
    const { workspace, protection } = await repetitionWorkspace();
    const name = `intutic-test-stop-output-${process.pid}-${Math.random().toString(16).slice(2, 10)}`;
    let stdout = '';
    let stderr = '';
    let stopped = false;
    const result = await runInSandbox(engine, {
      image,
      workspace,
      ...(protection ? { protection } : {}),
      envNames: [],
      env: {},
      command: COMMAND,
      labels: testLabel,
      name,
      ...extra,
      onStdout: (chunk) => {
        stdout += chunk.toString('utf8');
        if (!stopped && stdout.includes('READY\n')) {
          stopped = true;
          stop(name);
        }
      },
      onStderr: (chunk) => (stderr += chunk.toString('utf8')),
    });
    return { result, stdout, stderr };
  }

  /** The runner's own path: the abort monitor fires, its onTrigger aborts the sandbox's signal. */
  async function runUnderMonitor(trip: (events: string) => Promise<void> | void, cancelReason?: () => Promise<string | null>) {
    const { events } = await repetitionWorkspace();
    const stopAgent = new AbortController();
    let fired: MonitorTrigger | null = null;
    const monitor = new AbortMonitor({
      eventsPath: events,
      settings: { destructive_attempt: true, cost_usd_above: 0.5, wall_clock_s_above: null },
      runId: RUN_ID,
      agentStartedAt: Date.now(),
      ...(cancelReason ? { cancelReason } : {}),
      onTrigger: (trigger) => {
        fired = trigger;
        stopAgent.abort();
      },
    });
    monitor.start();
    try {
      const ran = await runAndStop(() => void trip(events), { signal: stopAgent.signal });
      return { ...ran, trigger: fired as MonitorTrigger | null };
    } finally {
      await monitor.stop();
    }
  }

  it('an abort condition met (the monitor reads a cost over the ceiling)', async () => {
    const ran = await runUnderMonitor((events) =>
      new EventWriter(events)
        .append({
          type: 'llm_call',
          source: 'proxy',
          run_id: RUN_ID,
          provider: 'anthropic',
          endpoint: '/v1/messages',
          model: 'claude-test',
          status: 200,
          stream: false,
          input_tokens: 1,
          output_tokens: 1,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          cost_usd: 1,
        })
        .then(() => undefined),
    );
    expect(ran.trigger?.kind).toBe('abort');
    expect(ran.result.aborted).toBe(true);
    expect(ran.stdout).toBe(EXPECTED_STDOUT);
    expect(ran.stderr).toBe(EXPECTED_STDERR);
  }, 120_000);

  it('a cancel (the monitor reads the cancel flag)', async () => {
    let cancelled = false;
    const ran = await runUnderMonitor(
      () => {
        cancelled = true;
      },
      async () => (cancelled ? 'cancelled by the test' : null),
    );
    expect(ran.trigger).toEqual({ kind: 'cancel', reason: 'cancelled by the test' });
    expect(ran.result.aborted).toBe(true);
    expect(ran.stdout).toBe(EXPECTED_STDOUT);
    expect(ran.stderr).toBe(EXPECTED_STDERR);
  }, 120_000);

  it("a timeout (as verify's)", async () => {
    // The timeout fires on its own; READY only tells the test nothing more is coming before it. Its
    // clock starts with the container, before the entrypoint's set-up: 15 s leave room for that set-up
    // on a loaded machine (4 s once cut the command off before READY, in CI).
    const ran = await runAndStop(() => undefined, { timeoutMs: 15_000 });
    expect(ran.result.timedOut).toBe(true);
    expect(ran.stdout).toBe(EXPECTED_STDOUT);
    expect(ran.stderr).toBe(EXPECTED_STDERR);
  }, 120_000);

  it('a SIGTERM from outside (the engine stopping the container)', async () => {
    const ran = await runAndStop((name) => void dockerKill(name, 'TERM'));
    expect(ran.result.exitCode).toBe(143);
    expect(ran.stdout).toBe(EXPECTED_STDOUT);
    expect(ran.stderr).toBe(EXPECTED_STDERR);
  }, 120_000);

  it('a command killed by a signal of its own, no stop asked for', async () => {
    const { workspace } = await repetitionWorkspace();
    let stdout = '';
    let stderr = '';
    const result = await runInSandbox(engine, {
      image,
      workspace,
      envNames: [],
      env: {},
      labels: testLabel,
      command: 'echo before; kill -KILL $$',
      onStdout: (chunk) => (stdout += chunk.toString('utf8')),
      onStderr: (chunk) => (stderr += chunk.toString('utf8')),
    });
    expect(result.exitCode).toBe(137);
    expect(stdout).toBe('before\n');
    expect(stderr).toBe('');
  }, 120_000);
});
