// `intutic chaos score <report.json>`: re-score a finished run from its artifacts without running
// anything — e.g. after changing the probes' weights in the experiment file. Prints the summary;
// --out writes the re-scored report. Exit 0 scored, 1 aborted, 2 invalid, 3 could not score.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { IntuticError } from '@intutic/errors';
import { formatDiagnostic, validateExperimentFile, type Experiment } from '@intutic/experiment';
import { readReport, renderSummary, writeReport } from '@intutic/report';
import { rescoreReport } from '@intutic/runner';
import type { Registration } from '../cli.ts';
import { cliPlaceholderResolver } from './chaos-validate.ts';

/** The faults must be the run's own: changing them would score events against a plan that never ran. */
function sameFaults(a: Experiment, b: Experiment): boolean {
  return JSON.stringify(a.faults) === JSON.stringify(b.faults);
}

export function registerChaosScoreCommand(chaos: Command, reg: Registration): void {
  chaos
    .command('score')
    .description("re-score a finished run from its artifacts (e.g. with changed weights); runs nothing")
    .argument('<report>', 'the JSON report of the run')
    .option('--experiment <file>', 'score with this experiment file’s probes and weights instead of the report’s (same faults)')
    .option('--out <report.json>', 'write the re-scored report here')
    .option('--json', 'print the re-scored report as JSON instead of the summary', false)
    .addHelpText('after', '\nExit status: 0 scored, 1 aborted, 2 invalid (the re-scored verdict), 3 could not score.')
    .action(async (reportArg: string, raw: { experiment?: string; out?: string; json: boolean }) => {
      const { ctx } = reg;
      const report = await readReport(resolve(ctx.cwd, reportArg));
      let experiment = report.experiment;
      if (raw.experiment) {
        const result = await validateExperimentFile(resolve(ctx.cwd, raw.experiment), { resolveVariable: cliPlaceholderResolver(ctx) });
        for (const d of result.errors) ctx.stderr.write(formatDiagnostic(d, 'error') + '\n');
        if (!result.experiment) throw new IntuticError('E_EXPERIMENT_INVALID', `${raw.experiment} is not a valid experiment`);
        if (!sameFaults(result.experiment, report.experiment)) {
          throw new IntuticError('E_USAGE', `${raw.experiment} has other faults than the run had; only probes, weights and values can change when re-scoring`);
        }
        experiment = { ...report.experiment, probes: result.experiment.probes };
      }
      const out = raw.out ? resolve(ctx.cwd, raw.out) : undefined;
      const rescored = await rescoreReport(report, experiment, out ? { reportPath: out } : {});
      if (out) await writeReport(rescored);
      if (raw.json) ctx.stdout.write(JSON.stringify(rescored, null, 2) + '\n');
      else ctx.stdout.write(renderSummary(rescored, { color: ctx.isTTY && !ctx.env.NO_COLOR }));
      reg.setExit(rescored.exit_code);
    });
}
