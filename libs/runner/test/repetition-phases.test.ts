// runRepetition on fakes: every effect (proxy, sandbox, workspace, artifacts) is a recording fake, the
// job's files are real under a scratch home. The phases run in order, and whatever fails — prepare,
// the proxy, the agent, verify, collecting the artifacts, or an abort — the proxy is stopped, the
// containers and the worktree are removed, each exactly once, and the job directory is gone.
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { IntuticError } from '@intutic/errors';
import type { RepetitionContext, RunPayload } from '@intutic/queue';
import type { SandboxRunOptions, SandboxRunResult } from '@intutic/sandbox';
import { scratchDir } from '@intutic/testkit';
import { diskArtifacts, jobPaths, runRepetition, type RunnerDeps, type RunningProxy } from '../src/index.ts';

type Failing = 'prepare' | 'proxy' | 'agent' | 'verify' | 'collect' | 'hold';

const COMMIT = 'a'.repeat(40);
const boom = (where: string) => new Error(`${where} broke`);

function payload(root: string): RunPayload {
  return {
    schema_version: 1,
    run_id: 'run-1',
    created_at: new Date(0).toISOString(),
    experiment: {
      name: 'phases',
      description: '',
      agent: 'the agent',
      verify: 'the verify',
      repeat: 1,
      faults: [{ index: 0, id: 'tool.error', match: { tool: 'Bash' }, after_calls: 1, times: 1, options: { message: 'boom' } }],
      probes: [{ id: 'failure_surfaced', weight: 1 }],
      abort: { destructive_attempt: true, cost_usd_above: 2, wall_clock_s_above: 900 },
      sandbox_image: null,
    },
    experiment_file: 'phases.yaml',
    commit: COMMIT,
    repo: { path: join(root, 'project'), remote: null },
    carry_in: { project_paths: [join(root, 'project')], files: [], policy: [], warnings: [] },
    env_names: [],
    sandbox_image: 'intutic/sandbox:test',
    report_path: join(root, 'report.json'),
    keep: false,
  };
}

/** A world of recording fakes; `journal` is every effect and phase change in the order it happened. */
/**
 * endsEarly: the agent's command ends (the entrypoint's trailer says 5) and its container is gone only
 * once verify has been released, or after 2 s; 'lost': the engine then loses the agent's container.
 */
function world(options: { failing?: Failing; cancel?: boolean; kind?: 'baseline' | 'faulted'; endsEarly?: 'gone' | 'lost' } = {}) {
  const root = scratchDir('intutic-phases-');
  const journal: string[] = [];
  const logs: string[] = [];
  const fail = (where: Failing) => {
    if (options.failing === where) throw boom(where);
  };
  const proxy: RunningProxy = {
    url: 'http://127.0.0.1:9',
    host: '127.0.0.1',
    port: 9,
    pid: 0,
    caCertPath: null,
    died: new Promise(() => undefined),
    stop: async () => void journal.push('proxy.stop'),
  };
  let verifyReleased: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (verifyReleased = resolve));
  const run = async (o: SandboxRunOptions): Promise<SandboxRunResult> => {
    const step = o.name!.endsWith('-agent') ? 'agent' : 'verify';
    journal.push(`sandbox.run ${step}`);
    o.onStarted?.();
    fail(step);
    if (step === 'verify') verifyReleased();
    if (options.endsEarly === 'lost' && step === 'verify') {
      // Runs until stopped: only losing the agent's container ends it.
      await Promise.race([
        new Promise<void>((resolve) => (o.signal!.aborted ? resolve() : o.signal!.addEventListener('abort', () => resolve()))),
        new Promise((resolve) => setTimeout(resolve, 2_000)),
      ]);
      journal.push(o.signal!.aborted ? 'verify stopped' : 'verify ran out');
      return { exitCode: 143, timedOut: false, aborted: o.signal!.aborted, startedAt: 0, endedAt: 1, durationMs: 1 };
    }
    if (options.endsEarly && step === 'agent') {
      o.onCommandEnded?.(5);
      await Promise.race([released, new Promise((resolve) => setTimeout(resolve, 2_000))]);
      journal.push('agent container gone');
      if (options.endsEarly === 'lost') throw boom('agent container');
      return { exitCode: 5, timedOut: false, aborted: false, startedAt: 0, endedAt: 1, durationMs: 1 };
    }
    if (options.cancel && step === 'agent') {
      // Runs until stopped, as a real agent would: only the abort monitor ends it.
      await new Promise<void>((resolve) => (o.signal!.aborted ? resolve() : o.signal!.addEventListener('abort', () => resolve())));
      return { exitCode: 143, timedOut: false, aborted: true, startedAt: 0, endedAt: 1, durationMs: 1 };
    }
    return { exitCode: 0, timedOut: false, aborted: false, startedAt: 0, endedAt: 1, durationMs: 1 };
  };
  const deps: RunnerDeps = {
    gateway: '127.0.0.1',
    home: join(root, 'home'),
    env: {},
    queue: { redis: 'redis://127.0.0.1:6379', prefix: 'test' },
    clock: { now: () => Date.now() },
    startProxy: async (o) => {
      journal.push(`proxy.start ${o.planPath ? 'with plan' : 'no plan'}`);
      fail('proxy');
      return proxy;
    },
    sandbox: {
      run,
      hold: async (o) => {
        journal.push('sandbox.hold verify');
        if (options.failing === 'hold') throw boom('hold');
        return { run: () => run(o), discard: async () => void journal.push('sandbox.discard verify') };
      },
      removeContainers: async (labels) => {
        journal.push(`sandbox.removeContainers ${Object.values(labels).join(',')}`);
        return 0;
      },
    },
    workspace: {
      resolveSource: async () => {
        journal.push('workspace.resolveSource');
        return join(root, 'project');
      },
      create: async (_source, commit, path) => {
        journal.push(`workspace.create ${commit.slice(0, 4)}`);
        await mkdir(path, { recursive: true });
      },
      applyCarryIn: async (_worktree, _carryIn, { governanceDir }) => {
        journal.push('workspace.applyCarryIn');
        fail('prepare');
        // The real one writes the policy files there; the plan goes beside them.
        await mkdir(governanceDir, { recursive: true });
        return { entries: [], env: {}, protection: { readOnly: [], pinned: [], placeholders: [] } };
      },
      hide: async () => void journal.push('workspace.hide'),
      remove: async (_source, path) => {
        journal.push('workspace.remove');
        await rm(path, { recursive: true, force: true });
      },
    },
    artifacts: {
      keepEvents: async (input) => {
        journal.push('artifacts.keepEvents');
        fail('collect');
        return diskArtifacts.keepEvents(input);
      },
      keepCopy: async (from, to) => {
        journal.push('artifacts.keepCopy');
        await diskArtifacts.keepCopy(from, to);
      },
    },
  };
  const ctx: RepetitionContext = {
    job: {} as Job,
    payload: payload(root),
    data: { run_id: 'run-1', kind: options.kind ?? 'baseline', index: 1, repeat: 1 },
    jobId: 'run-1-b1',
    log: async (line) => void logs.push(line),
    publish: async () => undefined,
    setProgress: async (p) => void journal.push(`phase ${p.phase}`),
    cancelReason: async () => (options.cancel ? 'cancelled by the user' : null),
  };
  const count = (prefix: string) => journal.filter((e) => e.startsWith(prefix)).length;
  return { root, journal, logs, deps, ctx, count, jobDir: jobPaths(join(root, 'home'), 'run-1-b1').dir };
}

const CLEAN_UP = ['proxy.stop', 'sandbox.removeContainers', 'workspace.remove'] as const;

describe('runRepetition, phase by phase', () => {
  it('runs prepare, proxy, agent, verify, collect and clean up, in that order', async () => {
    const w = world();
    const outcome = await runRepetition(w.ctx, w.deps);
    // The workspace is made while the proxy starts; each in its own order, both before the agent.
    const prepare = ['phase worktree', 'workspace.resolveSource', `workspace.create ${COMMIT.slice(0, 4)}`, 'workspace.applyCarryIn', 'workspace.hide'];
    const proxy = ['phase proxy', 'proxy.start no plan'];
    const before = w.journal.slice(1, prepare.length + proxy.length + 1);
    expect(w.journal[0]).toBe('phase starting');
    expect(before.filter((e) => prepare.includes(e))).toEqual(prepare);
    expect(before.filter((e) => proxy.includes(e))).toEqual(proxy);
    expect(w.journal.slice(prepare.length + proxy.length + 1)).toEqual([
      'phase agent',
      'sandbox.run agent',
      // Verify's container starts once the agent's has.
      'sandbox.hold verify',
      'phase verify',
      'sandbox.run verify',
      'phase artifacts',
      'proxy.stop',
      'artifacts.keepEvents',
      'sandbox.removeContainers run-1-b1',
      'workspace.remove',
    ]);
    expect(outcome).toMatchObject({ error: null, agent_exit_code: 0, verify_exit_code: 0, cancelled: false });
    expect(existsSync(w.jobDir)).toBe(false);
    expect(existsSync(outcome.artifacts.events)).toBe(true);
    // The log ends with what each phase took, so `chaos inspect` shows where a repetition's time went.
    expect(w.logs.at(-1)).toMatch(/^timings: open \d+ ms, prepare \d+ ms, proxy \d+ ms, agent \d+ ms, verify \d+ ms, artifacts \d+ ms, clean-up \d+ ms$/);
  });

  it('a faulted repetition writes the plan, gives it to the proxy and keeps a copy', async () => {
    const w = world({ kind: 'faulted' });
    const outcome = await runRepetition(w.ctx, w.deps);
    expect(outcome.error).toBeNull();
    expect(w.journal).toContain('proxy.start with plan');
    expect(w.journal.indexOf('artifacts.keepCopy')).toBeGreaterThan(w.journal.indexOf('artifacts.keepEvents'));
    expect(w.journal.indexOf('artifacts.keepCopy')).toBeLessThan(w.journal.indexOf('sandbox.removeContainers run-1-b1'));
    expect(existsSync(join(outcome.artifacts.dir, 'plan.json'))).toBe(true);
  });

  const failures: { failing: Failing; proxyStarted: boolean; agentRan: boolean; verifyRan: boolean; error: RegExp }[] = [
    // The proxy starts beside prepare: a failed prepare still has one to stop.
    { failing: 'prepare', proxyStarted: true, agentRan: false, verifyRan: false, error: /^prepare broke$/ },
    { failing: 'proxy', proxyStarted: false, agentRan: false, verifyRan: false, error: /^proxy broke$/ },
    { failing: 'agent', proxyStarted: true, agentRan: true, verifyRan: false, error: /^agent broke$/ },
    { failing: 'verify', proxyStarted: true, agentRan: true, verifyRan: true, error: /^verify broke$/ },
  ];
  for (const f of failures) {
    it(`a failure in ${f.failing} is the repetition's error, and everything created is cleaned up once`, async () => {
      const w = world({ failing: f.failing });
      const outcome = await runRepetition(w.ctx, w.deps);
      // A bare Error is a bug in the runner: the message says so and keeps the original words.
      expect(outcome.error).toContain(`${f.failing} broke`);
      expect(w.logs.some((l) => l.startsWith('runner error: ') && l.includes(`${f.failing} broke`))).toBe(true);
      expect(w.count('sandbox.run agent')).toBe(f.agentRan ? 1 : 0);
      expect(w.count('sandbox.run verify')).toBe(f.verifyRan ? 1 : 0);
      expect(w.count('proxy.stop')).toBe(f.proxyStarted ? 1 : 0);
      expect(w.count('sandbox.removeContainers')).toBe(1);
      expect(w.count('workspace.remove')).toBe(1);
      // The clean-up comes last, after the events were kept, in this order.
      const tail = w.journal.slice(w.journal.indexOf('phase artifacts'));
      expect(tail).toEqual([
        'phase artifacts',
        ...(f.proxyStarted ? ['proxy.stop'] : []),
        'artifacts.keepEvents',
        // Verify's container, held while the agent ran, is removed when verify never ran.
        ...(f.agentRan && !f.verifyRan ? ['sandbox.discard verify'] : []),
        expect.stringMatching(/^sandbox\.removeContainers /),
        'workspace.remove',
      ]);
      expect(existsSync(w.jobDir)).toBe(false);
      // The timings name the phases that ran, the failed one included.
      // prepare and proxy run side by side: both ran whichever failed.
      const ran = ['prepare', 'proxy', 'agent', 'verify'].slice(0, Math.max(2, ['prepare', 'proxy', 'agent', 'verify'].indexOf(f.failing) + 1));
      expect(w.logs.at(-1)!.replace(/ \d+ ms/g, '')).toBe(`timings: ${['open', ...ran, 'artifacts', 'clean-up'].join(', ')}`);
    });
  }

  it('a failure while collecting still stops the proxy and removes the containers and the worktree, then surfaces', async () => {
    const w = world({ failing: 'collect' });
    await expect(runRepetition(w.ctx, w.deps)).rejects.toThrow('collect broke');
    for (const step of CLEAN_UP) expect(w.count(step), step).toBe(1);
    expect(w.journal.slice(-2)).toEqual([expect.stringMatching(/^sandbox\.removeContainers /), 'workspace.remove']);
    expect(existsSync(w.jobDir)).toBe(false);
  });

  it('an abort (the user cancels) stops the agent, skips verify and cleans up once', async () => {
    const w = world({ cancel: true });
    const outcome = await runRepetition(w.ctx, w.deps);
    expect(outcome).toMatchObject({ cancelled: true, error: 'cancelled by the user', agent_exit_code: 143, verify_exit_code: null });
    expect(w.count('sandbox.run verify')).toBe(0);
    expect(w.count('sandbox.discard verify')).toBe(1);
    expect(w.journal).not.toContain('phase verify');
    for (const step of CLEAN_UP) expect(w.count(step), step).toBe(1);
    expect(w.logs).toContain('agent exited 143 after 0.0 s (stopped: cancelled)');
    expect(existsSync(w.jobDir)).toBe(false);
  });

  it("verify's container is started once the agent's has; one that could not be held is started when verify runs", async () => {
    const w = world({ failing: 'hold' });
    const outcome = await runRepetition(w.ctx, w.deps);
    expect(outcome).toMatchObject({ error: null, verify_exit_code: 0 });
    expect(w.journal.indexOf('sandbox.hold verify')).toBeGreaterThan(w.journal.indexOf('sandbox.run agent'));
    expect(w.count('sandbox.run verify')).toBe(1);
    expect(w.count('sandbox.discard verify')).toBe(0);
  });

  it("releases verify once the agent's command has ended, while its container is still going, and settles the agent's result", async () => {
    const w = world({ endsEarly: 'gone' });
    const outcome = await runRepetition(w.ctx, w.deps);
    expect(outcome).toMatchObject({ error: null, agent_exit_code: 5, verify_exit_code: 0 });
    expect(w.journal.indexOf('sandbox.run verify')).toBeLessThan(w.journal.indexOf('agent container gone'));
    expect(w.journal.indexOf('agent container gone')).toBeLessThan(w.journal.indexOf('phase artifacts'));
    expect(w.logs.indexOf('agent exited 5 after 0.0 s')).toBeGreaterThan(-1);
  });

  it("an agent's container the engine loses after its command ended stops verify, and is the repetition's error", async () => {
    const w = world({ endsEarly: 'lost' });
    const outcome = await runRepetition(w.ctx, w.deps);
    expect(outcome.error).toContain('agent container broke');
    expect(outcome.agent_exit_code).toBeNull();
    expect(w.journal).toContain('verify stopped');
    expect(w.journal.indexOf('agent container gone')).toBeLessThan(w.journal.indexOf('verify stopped'));
    for (const step of CLEAN_UP) expect(w.count(step), step).toBe(1);
    expect(existsSync(w.jobDir)).toBe(false);
  });

  it('an IntuticError from the proxy is said without its code, as the repetition error', async () => {
    const w = world();
    w.deps.startProxy = async () => {
      throw new IntuticError('E_PROXY_FAILED', "the repetition's proxy never said it was listening");
    };
    const outcome = await runRepetition(w.ctx, w.deps);
    expect(outcome.error).toBe("the repetition's proxy never said it was listening");
    expect(w.count('sandbox.run')).toBe(0);
    expect(w.count('workspace.remove')).toBe(1);
  });
});
