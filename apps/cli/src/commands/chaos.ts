// `intutic chaos …`: the experiment commands. Each subcommand lives in its own chaos-*.ts file; this
// file is only the list of them.
import type { Command } from 'commander';
import type { Registration } from '../program.ts';
import { registerChaosInitCommand } from './chaos-init.ts';
import { registerChaosValidateCommand } from './chaos-validate.ts';
import { registerChaosListCommand } from './chaos-list.ts';
import { registerChaosSchemaCommand } from './chaos-schema.ts';
import { registerChaosRunCommand } from './chaos-run.ts';
import { registerChaosSuiteCommand } from './chaos-suite.ts';
import { registerChaosWorkerCommand } from './chaos-worker.ts';
import { registerChaosStatusCommand } from './chaos-status.ts';
import { registerChaosInspectCommand } from './chaos-inspect.ts';
import { registerChaosScoreCommand } from './chaos-score.ts';
import { registerChaosReportCommand } from './chaos-report.ts';
import { registerChaosHistoryCommand } from './chaos-history.ts';
import { registerChaosCompareCommand } from './chaos-compare.ts';
import { registerChaosGcCommand } from './chaos-gc.ts';

export function registerChaosCommands(program: Command, reg: Registration): void {
  const chaos = program.command('chaos').description('chaos experiments: start one (init), validate, list, run, inspect and score them');
  registerChaosInitCommand(chaos, reg);
  registerChaosListCommand(chaos, reg);
  registerChaosValidateCommand(chaos, reg);
  registerChaosSchemaCommand(chaos, reg);
  registerChaosRunCommand(chaos, reg);
  registerChaosSuiteCommand(chaos, reg);
  registerChaosWorkerCommand(chaos, reg);
  registerChaosStatusCommand(chaos, reg);
  registerChaosInspectCommand(chaos, reg);
  registerChaosScoreCommand(chaos, reg);
  registerChaosReportCommand(chaos, reg);
  registerChaosHistoryCommand(chaos, reg);
  registerChaosCompareCommand(chaos, reg);
  registerChaosGcCommand(chaos, reg);
}
