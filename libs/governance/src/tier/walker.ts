// The walk in destructive.ts as the modules it hands a command to see it (stdin.ts, git.ts): what
// they find to run goes back through a Walker, in the order found, so they never import the walk
// that imports them.
import type { Scope } from '../expand.ts';
import type { SimpleCommand } from '../shell.ts';
import type { VerbHit } from './files.ts';

export interface Walker {
  /** Records a hit, found in the command segment `forms` names. */
  push(h: VerbHit | null, forms: string[]): void;
  /** A shell script the command runs: walked in a child of `scope`, with `extra` set there. */
  shell(text: string, scope: Scope, forms: string[], extra?: Partial<Scope>): void;
  /** Interpreter code the command runs, read in `scope`; `program` is its interpreter. */
  code(code: string, scope: Scope, forms: string[], program?: string): void;
  /** A command the command runs (xargs' own), analyzed as a pipeline of its own. */
  command(cmd: SimpleCommand, argv: string[], scope: Scope, forms: string[]): void;
}

/** A word as the shell reads it back, for a script rebuilt from words. */
export const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;
