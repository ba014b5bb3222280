// `intutic chaos …`: the experiment commands.
import type { Command } from 'commander';
import type { Registration } from '../cli.ts';

export function registerChaosCommands(program: Command, reg: Registration): void {
  const chaos = program.command('chaos').description('chaos experiments: validate, list, run, inspect and score them');
  void chaos;
  void reg;
}
