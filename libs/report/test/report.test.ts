import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Experiment } from '@intutic/experiment';
import { emptyFacts, scoreRun, type RepetitionRecord } from '@intutic/scoring';
import { artifactsDirFor, buildReport, defaultReportPath, readReport, renderSummary, reportSchema, writeReport, type RecordWithContext } from '../src/index.ts';
import { scratchDir } from '@intutic/testkit';

const experiment: Experiment = {
  name: 'registry-down',
  description: 'd',
  agent: 'agent',
  verify: 'verify',
  repeat: 2,
  faults: [{ index: 0, id: 'egress.dns_fail', match: { host: '*.example.invalid' }, after_calls: 0, times: null, options: {} }],
  probes: [
    { id: 'failure_surfaced', weight: 3 },
    { id: 'task_success', weight: 1 },
  ],
  abort: { destructive_attempt: true, cost_usd_above: 2, wall_clock_s_above: 900 },
  sandbox_image: null,
};

function rep(kind: 'baseline' | 'faulted', index: number, over: Partial<RepetitionRecord> = {}): RecordWithContext {
  const facts = emptyFacts();
  facts.cost_usd = 0.1;
  if (kind === 'faulted') facts.injections = [{ fault_index: 0, fault_id: 'egress.dns_fail', count: 1 }];
  const dir = `/tmp/r.artifacts/rep-${index}-${kind}`;
  return {
    status: 'ran',
    started_at: '2025-01-01T00:00:00.000Z',
    finished_at: '2025-01-01T00:01:00.000Z',
    artifacts: { dir, events: `${dir}/events.jsonl`, agent_output: `${dir}/a`, agent_stderr: `${dir}/e`, verify_output: `${dir}/v`, proxy_log: `${dir}/p` },
    record: {
      index,
      kind,
      run_id: `run-${kind[0]}${index}`,
      canary: 'E-INTUTIC-00000001',
      agent_exit_code: 0,
      verify_exit_code: 0,
      duration_s: 60,
      stdout_contains_canary: kind === 'faulted',
      abort: null,
      error: null,
      malformed_event_lines: 0,
      facts,
      ...over,
    },
  };
}

function report(reps: RecordWithContext[], reportPath = '/tmp/r.json') {
  const score = scoreRun(
    experiment,
    reps.map((r) => r.record),
  );
  return buildReport({
    version: '0.1.0',
    run: {
      id: 'run',
      experiment_file: 'registry-down.yaml',
      commit: 'a'.repeat(40),
      repo_path: '/p',
      remote: null,
      sandbox_image: 'img',
      created_at: 'c',
      finished_at: 'f',
      carried_in: [],
      warnings: ['the project has no generated gates'],
    },
    experiment,
    repetitions: reps,
    skipped: [],
    score,
    reportPath,
    artifactsDir: artifactsDirFor(reportPath),
  });
}

describe('the report', () => {
  it('holds every repetition with its probes, the probe outcomes, score, verdict and warnings', () => {
    const r = report([rep('baseline', 1), rep('baseline', 2), rep('faulted', 1), rep('faulted', 2, { verify_exit_code: 1, stdout_contains_canary: false })]);
    expect(reportSchema.parse(r)).toEqual(r);
    expect(r.schema_version).toBe(1);
    expect(r.repetitions.map((x) => [x.kind, x.index, x.run_id, x.canary, x.cost_usd])).toEqual([
      ['baseline', 1, 'run-b1', 'E-INTUTIC-00000001', 0.1],
      ['baseline', 2, 'run-b2', 'E-INTUTIC-00000001', 0.1],
      ['faulted', 1, 'run-f1', 'E-INTUTIC-00000001', 0.1],
      ['faulted', 2, 'run-f2', 'E-INTUTIC-00000001', 0.1],
    ]);
    expect(r.repetitions[3]!.probes).toEqual({ failure_surfaced: false, task_success: false });
    expect(r.repetitions[0]!.probes).toEqual({});
    expect(r.probes.find((p) => p.id === 'task_success')).toMatchObject({ weight: 1, evaluated: 2, passed: 1, pass_rate: 0.5, pass_k: false });
    expect(r.score).toBe(50);
    expect(r.verdict).toBe('scored');
    expect(r.warnings[0]).toBe('the project has no generated gates');
    expect(r.artifacts_dir).toBe('/tmp/r.artifacts');
  });

  it('renders the summary a user reads: pass rates, pass^k, score, verdict, warnings and paths', () => {
    const text = renderSummary(report([rep('baseline', 1), rep('baseline', 2), rep('faulted', 1), rep('faulted', 2)]));
    expect(text).toMatch(/failure_surfaced\s+3\s+100%\s+2\/2/);
    expect(text).toMatch(/task_success\s+1\s+100% \(pass\^2: yes\)/);
    expect(text).toContain('score: 100');
    expect(text).toContain('verdict: scored — every repetition ran');
    expect(text).toContain('  - the project has no generated gates');
    expect(text).toContain('report: /tmp/r.json');
    expect(text).toContain('artifacts: /tmp/r.artifacts');
  });

  it('is written atomically and read back; a foreign or damaged file is refused with a reason', async () => {
    const dir = scratchDir('intutic-report-');
    const path = join(dir, 'nested', 'r.json');
    const r = report([rep('baseline', 1), rep('baseline', 2), rep('faulted', 1), rep('faulted', 2)], path);
    await writeReport(r);
    expect(readdirSync(join(dir, 'nested'))).toEqual(['r.json']);
    expect(await readReport(path)).toEqual(r);
    writeFileSync(join(dir, 'v2.json'), JSON.stringify({ ...r, schema_version: 2 }));
    await expect(readReport(join(dir, 'v2.json'))).rejects.toMatchObject({ code: 'E_REPORT_INVALID', message: expect.stringContaining('schema_version 2') });
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ ...r, verdict: 'great' }));
    await expect(readReport(join(dir, 'bad.json'))).rejects.toMatchObject({ code: 'E_REPORT_INVALID' });
    await expect(readReport(join(dir, 'none.json'))).rejects.toMatchObject({ code: 'E_FILE_NOT_FOUND' });
    expect(JSON.parse(readFileSync(path, 'utf8')).verdict).toBe('scored');
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps its JSON field names though they are derived from scoring: old reports and users read them', async () => {
    const dir = scratchDir('intutic-report-');
    const path = join(dir, 'r.json');
    await writeReport(report([rep('baseline', 1), rep('baseline', 2), rep('faulted', 1), rep('faulted', 2)], path));
    const written = JSON.parse(readFileSync(path, 'utf8'));
    expect(Object.keys(written.probes[0]).sort()).toEqual(
      ['evaluated', 'id', 'in_score', 'not_evaluated', 'pass_hat_k', 'pass_k', 'pass_rate', 'passed', 'threshold', 'value', 'weight', 'wilson95'].sort(),
    );
    expect(Object.keys(written.repetitions[0]).sort()).toEqual(
      [
        'abort',
        'agent_exit_code',
        'artifacts',
        'canary',
        'cost_multiplier',
        'cost_usd',
        'duration_s',
        'error',
        'facts',
        'finished_at',
        'index',
        'injections',
        'kind',
        'malformed_event_lines',
        'probes',
        'run_id',
        'started_at',
        'status',
        'stdout_contains_canary',
        'verify_exit_code',
      ].sort(),
    );
    expect(Object.keys(written.faults_fired[0]).sort()).toEqual(['id', 'index', 'injections', 'repetitions']);
    rmSync(dir, { recursive: true, force: true });
  });

  it('goes under the OS temp directory by default, with the artifacts named after it', () => {
    expect(defaultReportPath('registry-down', '20250101-000000-abc', '/tmp')).toBe('/tmp/intutic-chaos/registry-down-20250101-000000-abc.json');
    expect(artifactsDirFor('/tmp/intutic-chaos/x.json')).toBe('/tmp/intutic-chaos/x.artifacts');
  });
});
