// `intutic chaos compare <a> <b>`: per-probe pass-rate deltas and the score delta between two runs,
// each marked beyond noise or not (Fisher's exact test per probe; non-overlapping 95% score
// intervals for the score — see libs/history/src/compare.ts). A run is a report path or a run id
// (or a unique prefix of one) from the history; when its report is gone, the history's record of it
// is used. Runs of different experiments are compared with a warning. Exit 0.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { IntuticError } from '@intutic/errors';
import { compareRuns, findRun, renderComparison, snapshotOfEntry, snapshotOfReport, type RunSnapshot } from '@intutic/history';
import { readReport } from '@intutic/report';
import { intuticHome } from '@intutic/workspace';
import type { Registration } from '../program.ts';
import type { CliContext } from '../context.ts';

export interface ChaosCompareOptions {
  a: string;
  b: string;
  json: boolean;
}

const isFile = (path: string) => existsSync(path) && statSync(path).isFile();

/** A report file when `ref` names one; else a run in the history, read from its report when that still exists. */
export async function resolveRun(ref: string, deps: { ctx: CliContext; home: string }): Promise<RunSnapshot> {
  const asPath = resolve(deps.ctx.cwd, ref);
  if (isFile(asPath)) return snapshotOfReport(await readReport(asPath));
  const entry = await findRun(ref, { home: deps.home });
  if (entry === null) {
    throw new IntuticError('E_RUN_NOT_FOUND', `${ref} is neither a report file nor a run id in the history`, {
      hints: [`list recorded runs with: intutic chaos history`, `the history is ${resolve(deps.home, 'history.jsonl')}`],
    });
  }
  if (isFile(entry.report_path)) return snapshotOfReport(await readReport(entry.report_path));
  return snapshotOfEntry(entry);
}

export async function runChaosCompare(options: ChaosCompareOptions, deps: { ctx: CliContext; home: string }): Promise<number> {
  const a = await resolveRun(options.a, deps);
  const b = await resolveRun(options.b, deps);
  const comparison = compareRuns(a, b);
  if (options.json) deps.ctx.stdout.write(JSON.stringify(comparison, null, 2) + '\n');
  else deps.ctx.stdout.write(renderComparison(comparison));
  return 0;
}

export function registerChaosCompareCommand(chaos: Command, reg: Registration): void {
  chaos
    .command('compare')
    .description('compare two runs: per-probe pass-rate and score deltas, and whether each is beyond noise')
    .argument('<a>', 'the first run: a report path, or a run id (or unique prefix) from `intutic chaos history`')
    .argument('<b>', 'the second run, likewise; deltas are b − a')
    .option('--json', 'print the comparison as JSON', false)
    .addHelpText(
      'after',
      [
        '',
        "Beyond noise: per probe, Fisher's exact test (two-sided) on the passed/failed counts, p < 0.05;",
        "for the score, the runs' 95% score intervals do not overlap (conservative).",
        'Exit status: 0 compared, 3 a run could not be found or read.',
      ].join('\n'),
    )
    .action(async (a: string, b: string, raw: { json: boolean }) => {
      reg.setExit(await runChaosCompare({ a, b, json: raw.json }, { ctx: reg.ctx, home: intuticHome(reg.ctx.env) }));
    });
}
