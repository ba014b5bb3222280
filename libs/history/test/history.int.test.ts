// The history under real concurrency: several processes append at once and nothing is lost or torn.
// Then the `chaos history` and `chaos compare` commands, run as a user runs them (the built bin).
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runBuiltCli, scratchDir } from '@intutic/testkit';
import { historyPath, readHistory, recordRun } from '../src/index.ts';
import { fixtureReport } from '@intutic/report/testing';

let dir = '';
beforeAll(() => {
  dir = scratchDir('intutic-history-int-');
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: REPO_ROOT, stdio: 'inherit' });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function recorder(home: string, worker: number, count: number): Promise<void> {
  const script = join(import.meta.dirname, 'fixtures', 'record-runs.ts');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', script, home, String(worker), String(count)],
      { cwd: REPO_ROOT, timeout: 120_000 },
      (error, _stdout, stderr) => (error ? reject(new Error(`recorder ${worker} failed: ${stderr}`)) : resolve()),
    );
  });
}

describe('recordRun from several processes at once', () => {
  it('loses and tears nothing', async () => {
    const home = join(dir, 'concurrent');
    const workers = 6;
    const each = 40;
    await Promise.all(Array.from({ length: workers }, (_, w) => recorder(home, w, each)));
    const { entries, malformed } = await readHistory({ home });
    expect(malformed).toBe(0);
    expect(entries).toHaveLength(workers * each);
    const ids = new Set(entries.map((e) => e.run_id));
    for (let w = 0; w < workers; w++) for (let i = 0; i < each; i++) expect(ids.has(`w${w}-r${i}`)).toBe(true);
    // Every line is longer than 4 KiB, so no small-write atomicity made this pass by luck.
    const lines = readFileSync(historyPath(home), 'utf8').trimEnd().split('\n');
    expect(Math.min(...lines.map((l) => Buffer.byteLength(l)))).toBeGreaterThan(4096);
  });
});

const PROBES = [
  { id: 'failure_surfaced' as const, weight: 3 },
  { id: 'task_success' as const, weight: 1 },
];

function writeReport(name: string, report: ReturnType<typeof fixtureReport>): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ ...report, report_path: path }, null, 2));
  return path;
}

describe('intutic chaos history and compare', () => {
  const home = () => join(dir, 'cli-home');
  const env = () => ({ ...process.env, INTUTIC_HOME: home(), NO_COLOR: '1' });
  let before = '';
  let after = '';

  beforeAll(async () => {
    const a = fixtureReport({
      runId: 'run-20250301-before',
      probes: PROBES,
      faulted: Array.from({ length: 8 }, () => ({ probes: { failure_surfaced: false, task_success: true } })),
    });
    const b = fixtureReport({
      runId: 'run-20250302-after',
      probes: PROBES,
      faulted: Array.from({ length: 8 }, (_, i) => ({ probes: { failure_surfaced: true, task_success: i > 0 } })),
    });
    b.run.finished_at = '2025-03-02T09:00:00.000Z';
    before = writeReport('before.json', a);
    after = writeReport('after.json', b);
    await recordRun({ ...a, report_path: before }, { home: home() });
    await recordRun({ ...b, report_path: after }, { home: home() });
    const other = fixtureReport({
      name: 'credential-revoked',
      runId: 'run-20250303-other',
      probes: PROBES,
      faulted: [{ probes: { failure_surfaced: true, task_success: true } }],
    });
    other.run.finished_at = '2025-03-03T09:00:00.000Z';
    // Its report is gone (temp dir cleaned): compare must use the history's record of it.
    await recordRun({ ...other, report_path: join(dir, 'deleted.json') }, { home: home() });
  });

  it('lists the recorded runs newest first, by experiment, and as JSON', async () => {
    const all = await runBuiltCli(['chaos', 'history'], { env: env() });
    expect(all.code).toBe(0);
    const rows = all.stdout.trim().split('\n');
    expect(rows[0]).toMatch(/^finished\s+run\s+experiment\s+verdict\s+score/);
    expect(rows.slice(1).map((r) => r.split(/\s{2,}/)[1])).toEqual(['run-20250303-other', 'run-20250302-after', 'run-20250301-before']);
    const filtered = await runBuiltCli(['chaos', 'history', '--experiment', 'registry-down', '--json'], { env: env() });
    expect(JSON.parse(filtered.stdout).map((r: { run_id: string }) => r.run_id)).toEqual(['run-20250302-after', 'run-20250301-before']);
    const empty = await runBuiltCli(['chaos', 'history'], { env: { ...env(), INTUTIC_HOME: join(dir, 'no-home') } });
    expect([empty.code, empty.stdout, empty.stderr]).toEqual([0, '', `no run is recorded yet in ${join(dir, 'no-home', 'history.jsonl')}\n`]);
  });

  it('compares two report files: deltas, beyond noise, the method', async () => {
    const run = await runBuiltCli(['chaos', 'compare', before, after], { env: env() });
    expect(run.code).toBe(0);
    // failure_surfaced 0/8 -> 8/8: Fisher p = 2 / C(16,8) = 0.00016; task_success 8/8 -> 7/8: p = 1.
    expect(run.stdout).toMatch(/failure_surfaced\s+0\/8 0%\s+8\/8 100%\s+\+100 pp\s+0\.000\s+YES/);
    expect(run.stdout).toMatch(/task_success\s+8\/8 100%\s+7\/8 87\.5%\s+−12\.5 pp\s+1\.000\s+no/);
    expect(run.stdout).toMatch(/score\s+25 \[.*\]\s+96\.9 \[.*\]\s+\+71\.9\s+—\s+YES \(the 95% intervals do not overlap\)/);
    expect(run.stdout).toContain("method: per probe: Fisher's exact test (two-sided) on the passed/failed counts of the two runs, beyond noise when p < 0.05");
    expect(run.stdout).not.toContain('warning:');
  });

  it('compares run ids from the history, using the record when the report is gone, and warns across experiments', async () => {
    const run = await runBuiltCli(['chaos', 'compare', 'run-20250301', 'run-20250303-other'], { env: env() });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('a: run-20250301-before  registry-down, scored');
    expect(run.stdout).toContain('b: run-20250303-other  credential-revoked, scored');
    expect(run.stdout).toContain('[from the history: the report is gone]');
    expect(run.stdout).toContain(
      'warning: the runs are of different experiments (registry-down and credential-revoked): their probes measured different things',
    );
    const json = JSON.parse((await runBuiltCli(['chaos', 'compare', before, 'run-20250302-after', '--json'], { env: env() })).stdout);
    expect(json.probes.map((p: { id: string; beyond_noise: boolean }) => [p.id, p.beyond_noise])).toEqual([
      ['failure_surfaced', true],
      ['task_success', false],
    ]);
  });

  it('says clearly when a run cannot be found or a report is not one', async () => {
    const missing = await runBuiltCli(['chaos', 'compare', before, 'run-nope'], { env: env() });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('error[E_RUN_NOT_FOUND]: run-nope is neither a report file nor a run id in the history');
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"schema_version": 1, "verdict": "great"}');
    const invalid = await runBuiltCli(['chaos', 'compare', bad, after], { env: env() });
    expect(invalid.code).toBe(3);
    expect(invalid.stderr).toContain(`error[E_REPORT_INVALID]: ${bad} is not a valid intutic report`);
    expect(invalid.stderr).not.toMatch(/\n\s+at /);
  });
});
