import type { Command } from 'commander';
import type { Registration } from '../cli.ts';

export function registerStartCommand(program: Command, reg: Registration): void {
  void program;
  void reg;
}
