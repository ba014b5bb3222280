import type { Command } from 'commander';
import type { Registration } from '../cli.ts';

export function registerConnectCommand(program: Command, reg: Registration): void {
  void program;
  void reg;
}
