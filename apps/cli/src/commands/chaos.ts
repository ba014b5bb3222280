// `intutic chaos …`: the experiment commands. Each subcommand lives in its own chaos-*.ts file; this
// file is only the list of them.
import type { Command } from 'commander';
import type { Registration } from '../cli.ts';
import { registerChaosValidateCommand } from './chaos-validate.ts';
import { registerChaosListCommand } from './chaos-list.ts';
import { registerChaosSchemaCommand } from './chaos-schema.ts';

export function registerChaosCommands(program: Command, reg: Registration): void {
  const chaos = program.command('chaos').description('chaos experiments: validate, list, run, inspect and score them');
  registerChaosListCommand(chaos, reg);
  registerChaosValidateCommand(chaos, reg);
  registerChaosSchemaCommand(chaos, reg);
}
