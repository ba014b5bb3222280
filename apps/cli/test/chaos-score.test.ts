// `chaos score` in process: run(options, deps) with a fake report store and re-scorer; paths taken
// from the working directory, the experiment file's probes kept only on the run's own faults.
import { describe, expect, it } from 'vitest';
import { EXIT } from '@intutic/errors';
import type { Experiment, ValidationResult } from '@intutic/experiment';
import type { Report } from '@intutic/report';
import { runScore, type ScoreDeps } from '../src/commands/chaos-score.ts';
import { capture, fixtureReport } from './run-fixtures.ts';

function scoreDeps(report: Report, validation: ValidationResult = { errors: [], warnings: [] }) {
  const stdout = capture();
  const stderr = capture();
  const calls = {
    read: [] as string[],
    validated: [] as string[],
    rescored: [] as { experiment: Experiment; options: { reportPath?: string } }[],
    written: [] as Report[],
  };
  const deps: ScoreDeps = {
    stdout: stdout.stream,
    stderr: stderr.stream,
    color: false,
    readReport: async (path) => (calls.read.push(path), report),
    validateExperiment: async (path) => (calls.validated.push(path), validation),
    rescore: async (r, experiment, options) => {
      calls.rescored.push({ experiment, options });
      return { ...r, experiment, ...(options.reportPath ? { report_path: options.reportPath } : {}) };
    },
    writeReport: async (r) => void calls.written.push(r),
  };
  return { deps, stdout, stderr, calls };
}

describe('runScore', () => {
  it("re-scores the report with its own experiment, prints the summary and exits with the verdict's code", async () => {
    const report = fixtureReport('aborted');
    const { deps, stdout, calls } = scoreDeps(report);
    expect(await runScore({ cwd: '/home/me/shop', report: 'reports/r.json', json: false }, deps)).toBe(EXIT.aborted);
    expect(calls.read).toEqual(['/home/me/shop/reports/r.json']);
    expect(calls.rescored).toEqual([{ experiment: report.experiment, options: {} }]);
    expect(calls.written).toEqual([]);
    expect(stdout.text()).toContain('registry-down — run run-1');
  });

  it("takes the experiment file's probes, writes --out and prints JSON", async () => {
    const report = fixtureReport();
    const probes = [{ id: 'task_success' as const, weight: 5 }];
    const { deps, stdout, calls } = scoreDeps(report, { experiment: { ...report.experiment, probes, name: 'renamed' }, errors: [], warnings: [] });
    expect(await runScore({ cwd: '/p', report: '/abs/r.json', experiment: 'chaos/x.yaml', out: 'out.json', json: true }, deps)).toBe(EXIT.ok);
    expect(calls.validated).toEqual(['/p/chaos/x.yaml']);
    // Only the probes change: the name, faults and the rest stay the run's.
    expect(calls.rescored[0]!.experiment).toEqual({ ...report.experiment, probes });
    expect(calls.rescored[0]!.options).toEqual({ reportPath: '/p/out.json' });
    expect(calls.written.map((r) => r.report_path)).toEqual(['/p/out.json']);
    expect(JSON.parse(stdout.text())).toMatchObject({ report_path: '/p/out.json', experiment: { probes } });
  });

  it('prints the errors of an invalid experiment file and fails with E_EXPERIMENT_INVALID (exit 3)', async () => {
    const diagnostic = { file: 'x.yaml', line: 3, column: 5, message: 'probes[0].weight: must be a number' };
    const { deps, stdout, stderr, calls } = scoreDeps(fixtureReport(), { errors: [diagnostic], warnings: [] });
    await expect(runScore({ cwd: '/p', report: 'r.json', experiment: 'x.yaml', json: false }, deps)).rejects.toMatchObject({
      code: 'E_EXPERIMENT_INVALID',
      message: 'x.yaml is not a valid experiment',
      exitCode: EXIT.couldNotRun,
    });
    expect(stderr.text()).toBe('x.yaml:3:5: error: probes[0].weight: must be a number\n');
    expect(calls.rescored).toEqual([]);
    expect(stdout.text()).toBe('');
  });

  it('refuses an experiment whose faults are not the run’s with E_USAGE', async () => {
    const report = fixtureReport();
    const other = { ...report.experiment, faults: [] };
    const { deps, calls } = scoreDeps(report, { experiment: other, errors: [], warnings: [] });
    await expect(runScore({ cwd: '/p', report: 'r.json', experiment: 'x.yaml', json: false }, deps)).rejects.toMatchObject({
      code: 'E_USAGE',
      message: expect.stringContaining('x.yaml has other faults than the run had'),
    });
    expect(calls.rescored).toEqual([]);
  });
});
