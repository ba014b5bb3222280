import type { Command } from 'commander';
import type { Registration } from '../cli.ts';

export function registerExecCommand(program: Command, reg: Registration): void {
  void program;
  void reg;
}
