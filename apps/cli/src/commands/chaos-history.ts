// `intutic chaos history [--experiment name] [--json]`: the finished runs recorded in
// ~/.intutic/history.jsonl (INTUTIC_HOME overrides ~/.intutic), newest first, as a table or as JSON.
import { InvalidArgumentError, type Command } from 'commander';
import { listRuns, readHistory, renderHistoryTable } from '@intutic/history';
import { intuticHome } from '@intutic/workspace';
import type { Registration } from '../program.ts';
import type { CliContext } from '../context.ts';

export interface ChaosHistoryOptions {
  experiment?: string;
  json: boolean;
  limit?: number;
}

export async function runChaosHistory(options: ChaosHistoryOptions, deps: { ctx: CliContext; home: string }): Promise<number> {
  const { ctx, home } = deps;
  const { malformed, path } = await readHistory({ home });
  let runs = await listRuns({ home, ...(options.experiment ? { experiment: options.experiment } : {}) });
  if (options.limit !== undefined) runs = runs.slice(0, options.limit);
  if (malformed > 0) ctx.stderr.write(`warning: ${malformed} line(s) of ${path} are not run records and were skipped\n`);
  if (options.json) {
    ctx.stdout.write(JSON.stringify(runs, null, 2) + '\n');
    return 0;
  }
  if (runs.length === 0) {
    ctx.stderr.write(options.experiment ? `no run of ${options.experiment} is recorded in ${path}\n` : `no run is recorded yet in ${path}\n`);
    return 0;
  }
  ctx.stdout.write(renderHistoryTable(runs));
  return 0;
}

export function registerChaosHistoryCommand(chaos: Command, reg: Registration): void {
  chaos
    .command('history')
    .description('list finished runs, newest first: experiment, verdict, score, commit, image, report')
    .option('--experiment <name>', 'only runs of this experiment')
    .option('--limit <n>', 'at most this many runs', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('a positive integer is expected');
      return n;
    })
    .option('--json', 'print the records as JSON', false)
    .addHelpText(
      'after',
      '\nRuns are recorded in ~/.intutic/history.jsonl (INTUTIC_HOME overrides ~/.intutic). Compare two with `intutic chaos compare <a> <b>`.',
    )
    .action(async (raw: { experiment?: string; json: boolean; limit?: number }) => {
      reg.setExit(await runChaosHistory(raw, { ctx: reg.ctx, home: intuticHome(reg.ctx.env) }));
    });
}
