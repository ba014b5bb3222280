// Run the built `intutic` bin as a user would, for tests that assert exit codes and output.
import { execFile, spawn, type ChildProcessByStdio } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { IntuticError } from '@intutic/errors';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const CLI_BIN = fileURLToPath(new URL('../../../apps/cli/bin/intutic.mjs', import.meta.url));
/** `intutic start` alone, the bundle a worker runs for every repetition's proxy. */
export const PROXY_BUNDLE = fileURLToPath(new URL('../../../apps/cli/dist/intutic-proxy.mjs', import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `node apps/cli/bin/intutic.mjs …` (or another built `bin`); the bundles must be built (npm ci / npm run build). */
export function runBuiltCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; bin?: string } = {}): Promise<CliRun> {
  const bundle = options.bin ?? fileURLToPath(new URL('../../../apps/cli/dist/intutic.mjs', import.meta.url));
  if (!existsSync(bundle)) {
    throw new IntuticError('E_FILE_NOT_FOUND', `the bundle ${bundle} is missing: run \`npm run build\` first`);
  }
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [options.bin ?? CLI_BIN, ...args],
      { cwd: options.cwd ?? REPO_ROOT, env: options.env ?? process.env, timeout: options.timeoutMs ?? 60_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
}

export interface StartedCli {
  child: ChildProcessByStdio<Writable, Readable, Readable>;
  /** Its first line on stdout; rejects with its stderr when it exits before printing one. */
  firstLine: Promise<string>;
  exit: Promise<number | null>;
  stdout(): string;
  stderr(): string;
}

/** Starts `node <bin> …args` as a long-running command (stdin a pipe, output collected), e.g. `intutic start`. */
export function startBuiltCli(bin: string, args: readonly string[], env: NodeJS.ProcessEnv): StartedCli {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const firstLine = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', () => reject(new Error(`exited before serving: ${stderr}`)));
  });
  firstLine.catch(() => undefined);
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, firstLine, exit, stdout: () => stdout, stderr: () => stderr };
}
