// What every command gets instead of reaching for process globals, so command logic runs in tests
// without a terminal: output streams, environment, working directory, the CLI version, a signal.
import type { Writable } from 'node:stream';

export interface CliContext {
  stdout: Writable;
  stderr: Writable;
  env: NodeJS.ProcessEnv;
  cwd: string;
  version: string;
  /** Whether stdout is a terminal (progress displays redraw only there). */
  isTTY: boolean;
  /** Fires on Ctrl-C (SIGINT) or SIGTERM. */
  signal: AbortSignal;
}

/** A command's action resolves to the process exit code. */
export type CommandResult = number;
