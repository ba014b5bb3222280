// What every command gets instead of reaching for process globals, so command logic runs in tests
// without a terminal: output streams, environment, working directory, the CLI version, a signal.
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { verboseBuildOutput, type BuildProgressOptions } from '@intutic/sandbox';
import { intuticHome } from '@intutic/workspace';

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

/** How a command shows an image build on stderr: progress, the full log under <intutic home>/logs;
 * every line with --verbose or INTUTIC_VERBOSE=1. */
export function imageBuildProgress(ctx: CliContext, verbose?: boolean): BuildProgressOptions {
  return { sink: ctx.stderr, logDir: join(intuticHome(ctx.env), 'logs'), prefix: '[sandbox image] ', verbose: verboseBuildOutput(ctx.env, verbose) };
}
