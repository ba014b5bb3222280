// Running the built `intutic` bin as a user would (node apps/cli/bin/intutic.mjs …), with its output
// streamed to callbacks as it comes and collected, for the demo and the end-to-end tests.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IntuticError } from '@intutic/errors';

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const INTUTIC_BIN = join(REPO_ROOT, 'apps', 'cli', 'bin', 'intutic.mjs');

export interface IntuticRun {
  code: number;
  stdout: string;
  stderr: string;
  durationMs: number;
}

export interface IntuticRunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  onStdout?: (text: string) => void;
  onStderr?: (text: string) => void;
  timeoutMs?: number;
}

export function assertCliBuilt(): void {
  if (!existsSync(join(REPO_ROOT, 'apps', 'cli', 'dist', 'intutic.mjs'))) {
    throw new IntuticError('E_FILE_NOT_FOUND', 'the intutic CLI bundle is missing: run `npm run build` first');
  }
}

/** Runs `intutic <args>`; a timeout sends SIGINT (chaos run then cancels its run) and SIGKILL 30 s later. */
export function runIntutic(args: readonly string[], options: IntuticRunOptions): Promise<IntuticRun> {
  assertCliBuilt();
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [INTUTIC_BIN, ...args], { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      options.onStdout?.(text);
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
      options.onStderr?.(text);
    });
    const timers: NodeJS.Timeout[] = [];
    if (options.timeoutMs !== undefined) {
      timers.push(
        setTimeout(() => {
          child.kill('SIGINT');
          timers.push(setTimeout(() => child.kill('SIGKILL'), 30_000));
        }, options.timeoutMs),
      );
    }
    child.once('error', reject);
    child.once('close', (code, signal) => {
      for (const t of timers) clearTimeout(t);
      resolve({ code: code ?? (signal === 'SIGINT' ? 130 : 1), stdout, stderr, durationMs: Date.now() - started });
    });
  });
}
