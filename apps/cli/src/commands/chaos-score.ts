// `intutic chaos score <report.json>`: re-score a finished run from its artifacts without running
// anything — e.g. after changing the probes' weights in the experiment file. Prints the summary;
// --out writes the re-scored report. Exit 0 scored, 1 aborted, 2 invalid, 3 could not score.
import { resolve } from 'node:path';
import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import { IntuticError } from '@intutic/errors';
import { formatDiagnostic, validateExperimentFile, type Experiment, type ValidationResult } from '@intutic/experiment';
import { readReport, renderSummary, writeReport, type Report } from '@intutic/report';
import { rescoreReport } from '@intutic/runner';
import type { Registration } from '../program.ts';
import { cliPlaceholderResolver } from '../shared/placeholders.ts';

export interface ScoreOptions {
  /** Where relative paths are taken from. */
  cwd: string;
  /** The run's JSON report. */
  report: string;
  /** An experiment file whose probes and weights replace the report's (same faults). */
  experiment?: string;
  /** Where the re-scored report is written; nothing is written without it. */
  out?: string;
  json: boolean;
}

export interface ScoreDeps {
  stdout: Writable;
  stderr: Writable;
  color: boolean;
  readReport: (path: string) => Promise<Report>;
  validateExperiment: (path: string) => Promise<ValidationResult>;
  /** Score the run's artifacts again with this experiment's probes. */
  rescore: (report: Report, experiment: Experiment, options: { reportPath?: string }) => Promise<Report>;
  writeReport: (report: Report) => Promise<void>;
}

/** The faults must be the run's own: changing them would score events against a plan that never ran. */
function sameFaults(a: Experiment, b: Experiment): boolean {
  return JSON.stringify(a.faults) === JSON.stringify(b.faults);
}

/** The report's experiment, or the given file's probes on the report's faults. */
async function experimentToScoreWith(options: ScoreOptions, report: Report, deps: ScoreDeps): Promise<Experiment> {
  if (!options.experiment) return report.experiment;
  const result = await deps.validateExperiment(resolve(options.cwd, options.experiment));
  for (const d of result.errors) deps.stderr.write(formatDiagnostic(d, 'error') + '\n');
  if (!result.experiment) throw new IntuticError('E_EXPERIMENT_INVALID', `${options.experiment} is not a valid experiment`);
  if (!sameFaults(result.experiment, report.experiment)) {
    throw new IntuticError('E_USAGE', `${options.experiment} has other faults than the run had; only probes, weights and values can change when re-scoring`);
  }
  return { ...report.experiment, probes: result.experiment.probes };
}

export async function runScore(options: ScoreOptions, deps: ScoreDeps): Promise<number> {
  const report = await deps.readReport(resolve(options.cwd, options.report));
  const experiment = await experimentToScoreWith(options, report, deps);
  const out = options.out ? resolve(options.cwd, options.out) : undefined;
  const rescored = await deps.rescore(report, experiment, out ? { reportPath: out } : {});
  if (out) await deps.writeReport(rescored);
  if (options.json) deps.stdout.write(JSON.stringify(rescored, null, 2) + '\n');
  else deps.stdout.write(renderSummary(rescored, { color: deps.color }));
  return rescored.exit_code;
}

export function registerChaosScoreCommand(chaos: Command, reg: Registration): void {
  chaos
    .command('score')
    .description('re-score a finished run from its artifacts (e.g. with changed weights); runs nothing')
    .argument('<report>', 'the JSON report of the run')
    .option('--experiment <file>', 'score with this experiment file’s probes and weights instead of the report’s (same faults)')
    .option('--out <report.json>', 'write the re-scored report here')
    .option('--json', 'print the re-scored report as JSON instead of the summary', false)
    .addHelpText('after', '\nExit status: 0 scored, 1 aborted, 2 invalid (the re-scored verdict), 3 could not score.')
    .action(async (reportArg: string, raw: { experiment?: string; out?: string; json: boolean }) => {
      const { ctx } = reg;
      const code = await runScore(
        { cwd: ctx.cwd, report: reportArg, json: raw.json, ...(raw.experiment ? { experiment: raw.experiment } : {}), ...(raw.out ? { out: raw.out } : {}) },
        {
          stdout: ctx.stdout,
          stderr: ctx.stderr,
          color: ctx.isTTY && !ctx.env.NO_COLOR,
          readReport,
          validateExperiment: (path) => validateExperimentFile(path, { resolveVariable: cliPlaceholderResolver(ctx) }),
          rescore: rescoreReport,
          writeReport,
        },
      );
      reg.setExit(code);
    });
}
