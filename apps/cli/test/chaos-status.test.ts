// `chaos status` and `chaos inspect` in process: run(options, deps) against a fake reader of the
// queue and a fake machine; what they print, their exit codes, and the usage errors; a --parallel
// run's gate and the faulted repetitions it has not added yet.
import { describe, expect, it } from 'vitest';
import { EXIT, IntuticError } from '@intutic/errors';
import type { RunView } from '@intutic/queue';
import { runInspect, type MachineView } from '../src/commands/chaos-inspect.ts';
import { runStatus, type StatusDeps } from '../src/commands/chaos-status.ts';
import { capture, fakeRunReader, jobView, runView } from './run-fixtures.ts';

function statusDeps(runs = [runView()], workers = 2) {
  const stdout = capture();
  const followed: string[] = [];
  const deps: StatusDeps = {
    stdout: stdout.stream,
    runs: fakeRunReader(runs, workers),
    follow: async (run) => (followed.push(run), EXIT.aborted),
    suites: { find: async () => null, follow: async () => EXIT.ok },
  };
  return { deps, stdout, followed };
}

describe('runStatus', () => {
  it('lists the runs with the workers online and exits 0', async () => {
    const { deps, stdout } = statusDeps();
    expect(await runStatus({ json: false, follow: false }, deps)).toBe(EXIT.ok);
    const lines = stdout.text().split('\n');
    expect(lines[0]).toBe('2 worker(s) online');
    expect(lines[1]).toMatch(/^run\s+experiment\s+created\s+state\s+progress \/ verdict$/);
    expect(lines[2]).toMatch(/^run-20250301-abc123\s+queue-test\s+2025-03-01 10:00:00\s+running\s+2\/2 done$/);
  });

  it('says so when the queue holds no runs', async () => {
    const { deps, stdout } = statusDeps([], 0);
    expect(await runStatus({ json: false, follow: false }, deps)).toBe(EXIT.ok);
    expect(stdout.text()).toBe('0 worker(s) online\nno runs in the queue\n');
  });

  it("shows one run's jobs, named by a prefix of its id", async () => {
    const { deps, stdout } = statusDeps();
    expect(await runStatus({ run: 'run-2025', json: false, follow: false }, deps)).toBe(EXIT.ok);
    const text = stdout.text();
    expect(text).toContain('run run-20250301-abc123: queue-test, running\nreport: /reports/run-20250301-abc123.json\n');
    expect(text).toMatch(/run-20250301-abc123-b1\s+completed\s+2025-03-01 10:00:00\s+12\.5 s\s*\n/);
    expect(text).toMatch(/run-20250301-abc123-f1\s+failed\s+2025-03-01 10:01:00\s+60\.0 s\s+its worker stopped in the middle of it\n/);
  });

  it('prints JSON without the carried-in files’ contents', async () => {
    const { deps, stdout } = statusDeps();
    expect(await runStatus({ run: 'run-20250301-abc123', json: true, follow: false }, deps)).toBe(EXIT.ok);
    const printed = JSON.parse(stdout.text());
    expect(printed.run_id).toBe('run-20250301-abc123');
    expect(printed.payload.carry_in.files).toEqual([{ path: '.env.example', mode: 0o644, committed: false }]);
    expect(stdout.text()).not.toContain('U0VDUkVU');
  });

  it('follows a run and exits with its code', async () => {
    const { deps, followed } = statusDeps();
    expect(await runStatus({ run: 'run-2025', json: false, follow: true }, deps)).toBe(EXIT.aborted);
    expect(followed).toEqual(['run-2025']);
  });

  it('refuses --follow without a run, and --follow with --json, before reading anything', async () => {
    const { deps, stdout, followed } = statusDeps();
    await expect(runStatus({ json: false, follow: true }, deps)).rejects.toMatchObject({
      code: 'E_USAGE',
      message: expect.stringContaining('--follow needs a run id'),
      exitCode: EXIT.usage,
    });
    await expect(runStatus({ run: 'x', json: true, follow: true }, deps)).rejects.toMatchObject({
      code: 'E_USAGE',
      message: expect.stringContaining('cannot be combined'),
    });
    expect(followed).toEqual([]);
    expect(stdout.text()).toBe('');
  });

  it('passes on an unknown run as E_RUN_NOT_FOUND (exit 3)', async () => {
    const { deps } = statusDeps();
    const failure = runStatus({ run: 'nope', json: false, follow: false }, deps);
    await expect(failure).rejects.toBeInstanceOf(IntuticError);
    await expect(failure).rejects.toMatchObject({ code: 'E_RUN_NOT_FOUND', exitCode: EXIT.couldNotRun });
  });
});

describe('runInspect', () => {
  const machine = (present: string[] = [], leftovers: Record<string, string[]> = {}): MachineView => ({
    exists: (path) => present.includes(path),
    leftovers: async (jobId) => leftovers[jobId] ?? [],
  });

  it("prints every job's state, outcome, artifacts, leftovers and logs, read with logs", async () => {
    const stdout = capture();
    const runs = fakeRunReader([runView()]);
    const present = ['/reports/run-20250301-abc123.json', '/reports/run-20250301-abc123.artifacts/rep-1-baseline/events.jsonl'];
    const code = await runInspect(
      { run: 'run-20250301', json: false },
      { stdout: stdout.stream, runs, machine: machine(present, { 'run-20250301-abc123-f1': ['worktree /home/me/.intutic/jobs/f1/work'] }) },
    );
    expect(code).toBe(EXIT.ok);
    expect(runs.reads).toEqual([{ id: 'run-20250301-abc123', logs: true }]);
    const text = stdout.text();
    expect(text).toContain('run run-20250301-abc123: queue-test (queue-test.yaml), running\n');
    expect(text).toContain('  image intutic/sandbox:test; report /reports/run-20250301-abc123.json\n');
    expect(text).toContain('  artifacts /reports/run-20250301-abc123.artifacts\n');
    expect(text).toContain(
      '\nrun-20250301-abc123-b1 — completed\n  created 2025-03-01T10:00:00.000Z, started 2025-03-01T10:00:00.000Z, finished 2025-03-01T10:00:12.500Z\n',
    );
    expect(text).toContain('  events: /reports/run-20250301-abc123.artifacts/rep-1-baseline/events.jsonl\n');
    expect(text).toContain('  agent_output: /reports/run-20250301-abc123.artifacts/rep-1-baseline/agent.stdout.txt (absent)\n');
    expect(text).toContain('  log:\n    agent exited 0\n');
    expect(text).toContain('\nrun-20250301-abc123-f1 — failed\n');
    expect(text).toContain('  failed: its worker stopped in the middle of it\n');
    expect(text).toContain('  still on this machine: worktree /home/me/.intutic/jobs/f1/work\n');
  });

  it('says a report that is not there is not written yet', async () => {
    const stdout = capture();
    await runInspect({ run: 'run-20250301-abc123', json: false }, { stdout: stdout.stream, runs: fakeRunReader([runView()]), machine: machine() });
    expect(stdout.text()).toContain('report /reports/run-20250301-abc123.json (not written yet)\n');
  });

  it('prints JSON without the carried-in files’ contents', async () => {
    const stdout = capture();
    expect(await runInspect({ run: 'run-20250301-abc123', json: true }, { stdout: stdout.stream, runs: fakeRunReader([runView()]), machine: machine() })).toBe(
      EXIT.ok,
    );
    expect(JSON.parse(stdout.text()).jobs).toHaveLength(3);
    expect(stdout.text()).not.toContain('U0VDUkVU');
  });

  it('fails with E_RUN_NOT_FOUND for a run the queue does not hold, printing nothing', async () => {
    const stdout = capture();
    await expect(
      runInspect({ run: 'nope', json: false }, { stdout: stdout.stream, runs: fakeRunReader([runView()]), machine: machine() }),
    ).rejects.toMatchObject({ code: 'E_RUN_NOT_FOUND', exitCode: EXIT.couldNotRun });
    expect(stdout.text()).toBe('');
  });
});

/**
 * A --parallel run of two repetitions per phase mid-baseline: b1 done, b2 running, the gate waiting
 * for them, the faulted repetitions not added yet.
 */
function parallelRunView(runId = 'run-20250301-par123'): RunView {
  const base = runView(runId);
  const at = (minute: number) => Date.UTC(2025, 2, 1, 10, minute);
  return {
    ...base,
    payload: { ...base.payload, parallel: true, experiment: { ...base.payload.experiment, repeat: 2 } },
    jobs: [
      jobView({ id: `${runId}-b1`, kind: 'baseline', index: 1, state: 'completed', started_at: at(0), finished_at: at(1) }),
      jobView({ id: `${runId}-b2`, kind: 'baseline', index: 2, state: 'active', started_at: at(0) }),
      jobView({ id: `${runId}-phase-f`, kind: 'gate', index: 0, state: 'waiting-children' }),
      jobView({ id: `${runId}-f1`, kind: 'faulted', index: 1, state: 'pending', created_at: null }),
      jobView({ id: `${runId}-f2`, kind: 'faulted', index: 2, state: 'pending', created_at: null }),
      jobView({ id: `${runId}-score`, kind: 'score', index: 0, state: 'waiting-children' }),
    ],
  };
}

describe('a --parallel run', () => {
  it('counts only repetitions toward its progress, never the gate', async () => {
    const { deps, stdout } = statusDeps([parallelRunView()]);
    await runStatus({ json: false, follow: false }, deps);
    expect(stdout.text().split('\n')[2]).toMatch(
      /^run-20250301-par123\s+queue-test\s+2025-03-01 10:00:00\s+running\s+1\/4 done, run-20250301-par123-b2 running$/,
    );
  });

  it('shows the gate as a row of its own and the faulted repetitions not added yet as pending', async () => {
    const { deps, stdout } = statusDeps([parallelRunView()]);
    await runStatus({ run: 'run-20250301-par', json: false, follow: false }, deps);
    const rows = stdout.text().split('\n').slice(3, 9);
    expect(rows.map((r) => r.split(/\s{2,}/)[0])).toEqual([
      'run-20250301-par123-b1',
      'run-20250301-par123-b2',
      'run-20250301-par123-phase-f (faulted phase gate)',
      'run-20250301-par123-f1',
      'run-20250301-par123-f2',
      'run-20250301-par123-score',
    ]);
    expect(rows[2]).toMatch(
      /^run-20250301-par123-phase-f \(faulted phase gate\)\s+waiting-children\s+-\s+-\s+adds the faulted repetitions once every baseline is done$/,
    );
    expect(rows[3]).toMatch(/^run-20250301-par123-f1\s+pending\s+-\s+-\s+added once every baseline is done$/);
  });

  it('says what the gate did once it has run, and why it failed when it did', async () => {
    const view = parallelRunView();
    const gateAt = (over: Partial<RunView['jobs'][number]>) => ({ ...view, jobs: view.jobs.map((j) => (j.kind === 'gate' ? { ...j, ...over } : j)) });
    const ran = statusDeps([
      gateAt({
        state: 'completed',
        started_at: Date.UTC(2025, 2, 1, 10, 2),
        finished_at: Date.UTC(2025, 2, 1, 10, 2, 0, 300),
        result: { status: 'ran', outcome: null, stop: null },
      }),
    ]);
    await runStatus({ run: 'run-20250301-par', json: false, follow: false }, ran.deps);
    expect(ran.stdout.text()).toMatch(
      /phase-f \(faulted phase gate\)\s+completed\s+2025-03-01 10:02:00\s+0\.3 s\s+every baseline done: the faulted repetitions were added\n/,
    );
    const stop = { kind: 'invalid' as const, reason: 'baseline repetition 1 failed verify (exit 1)', job_id: 'run-20250301-par123-b1' };
    const skipped = statusDeps([gateAt({ state: 'completed', result: { status: 'skipped', outcome: null, stop } })]);
    await runStatus({ run: 'run-20250301-par', json: false, follow: false }, skipped.deps);
    expect(skipped.stdout.text()).toMatch(/phase-f \(faulted phase gate\)\s+skipped\s+-\s+-\s+baseline repetition 1 failed verify \(exit 1\)\n/);

    const stdout = capture();
    const failed = gateAt({ state: 'failed', failed_reason: 'its worker stopped in the middle of it', logs: ['gate log line'] });
    await runInspect(
      { run: 'run-20250301-par', json: false },
      { stdout: stdout.stream, runs: fakeRunReader([failed]), machine: { exists: () => false, leftovers: async () => [] } },
    );
    expect(stdout.text()).toContain(
      '\nrun-20250301-par123-phase-f (faulted phase gate) — failed\n  created 2025-03-01T10:00:00.000Z, started -, finished -\n  failed: its worker stopped in the middle of it\n  log:\n    gate log line\n',
    );
  });

  it('inspects the gate and the pending repetitions as sections, without artifacts for what does not exist yet', async () => {
    const stdout = capture();
    const leftoversAskedFor: string[] = [];
    const machine: MachineView = { exists: () => false, leftovers: async (jobId) => (leftoversAskedFor.push(jobId), []) };
    await runInspect({ run: 'run-20250301-par', json: false }, { stdout: stdout.stream, runs: fakeRunReader([parallelRunView()]), machine });
    const text = stdout.text();
    expect(text).toContain(
      '\nrun-20250301-par123-phase-f (faulted phase gate) — waiting-children\n  created 2025-03-01T10:00:00.000Z, started -, finished -\n  adds the faulted repetitions once every baseline is done\n\nrun-20250301-par123-f1 — pending\n  created -, started -, finished -\n  added once every baseline is done\n\nrun-20250301-par123-f2 — pending\n',
    );
    expect(leftoversAskedFor).toEqual(['run-20250301-par123-b1', 'run-20250301-par123-b2']);
  });

  it('carries the gate and the pending repetitions in --json, for status and inspect alike', async () => {
    const { deps, stdout } = statusDeps([parallelRunView()]);
    await runStatus({ run: 'run-20250301-par123', json: true, follow: false }, deps);
    const inspected = capture();
    await runInspect(
      { run: 'run-20250301-par123', json: true },
      { stdout: inspected.stream, runs: fakeRunReader([parallelRunView()]), machine: { exists: () => false, leftovers: async () => [] } },
    );
    for (const printed of [stdout.text(), inspected.text()]) {
      const jobs = (JSON.parse(printed) as RunView).jobs.map((j) => [j.id.slice('run-20250301-par123-'.length), j.kind, j.state]);
      expect(jobs).toEqual([
        ['b1', 'baseline', 'completed'],
        ['b2', 'baseline', 'active'],
        ['phase-f', 'gate', 'waiting-children'],
        ['f1', 'faulted', 'pending'],
        ['f2', 'faulted', 'pending'],
        ['score', 'score', 'waiting-children'],
      ]);
    }
  });
});
