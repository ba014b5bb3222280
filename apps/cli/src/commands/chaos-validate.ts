// `intutic chaos validate <file…>`: every problem of every file as `file:line:column: error: …`
// (warnings likewise), one summary line per file; `-` reads an experiment from stdin. A suite file is
// recognised and validated with every experiment it names and its profiles. Exit 0 when all
// are valid, 3 when any is not, 66 when a file was refused unread (not a regular file, too large).
// Ctrl-C and SIGTERM end it at once whatever it waits for (a slow read, stdin, npm): 130 and 143.
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { Command } from 'commander';
import pc from 'picocolors';
import { EXIT, exitCodeFor } from '@intutic/errors';
import {
  environmentResolver,
  formatDiagnostic,
  readExperimentFile,
  readExperimentStream,
  REGISTRY_DOMAIN_VARIABLE,
  validateExperimentInput,
  type Diagnostic,
  type ExperimentInput,
  type ResolveVariable,
  type ValidationResult,
} from '@intutic/experiment';
import type { Registration } from '../program.ts';
import type { CliContext } from '../context.ts';
import { looksLikeSuite, validateSuiteAt } from '../shared/suite-file.ts';

export interface ValidateOptions {
  files: string[];
  json: boolean;
}

export interface ValidateDeps {
  stdout: Writable;
  color: boolean;
  validateFile: (file: string) => Promise<ValidationResult>;
  /** Ctrl-C / SIGTERM: validation stops where it is and the signal's reason is thrown. */
  signal?: AbortSignal;
}

/** How stdin (`-`) is named in diagnostics. */
export const STDIN_NAME = '<stdin>';

/**
 * The resolver for one experiment's text. npm is asked (once, for every file) only when the text
 * names NPM_REGISTRY_DOMAIN and the environment does not set it; asynchronously, so a signal is
 * handled while npm runs, and npm is killed with it.
 */
function asyncPlaceholderResolver(ctx: Pick<CliContext, 'env' | 'cwd' | 'signal'>) {
  let registryUrl: Promise<string | undefined> | undefined;
  const askNpm = () =>
    (registryUrl ??= new Promise((done) => {
      execFile('npm', ['config', 'get', 'registry'], { cwd: ctx.cwd, env: ctx.env, encoding: 'utf8', timeout: 20_000, signal: ctx.signal }, (error, stdout) =>
        done(error ? undefined : stdout),
      );
    }));
  // A suite's own text names no placeholder, but the experiments it names may.
  return async (input: ExperimentInput, suite = false): Promise<ResolveVariable> => {
    const needsNpm = 'text' in input && (suite || input.text.includes(REGISTRY_DOMAIN_VARIABLE)) && !ctx.env[REGISTRY_DOMAIN_VARIABLE];
    const url = needsNpm ? await askNpm() : undefined;
    return environmentResolver(ctx.env, () => url);
  };
}

/** The work's result, or the signal's reason as soon as it fires. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  // The signal's reason is passed on as whoever aborted gave it (an Error, or a signal name).
  // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((done, fail) => {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    const onAbort = () => fail(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(done, fail).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function summary(file: string, result: ValidationResult): string {
  const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const warnings = result.warnings.length > 0 ? count(result.warnings.length, 'warning') : '';
  if (result.errors.length === 0) return `${file}: valid${warnings ? ` (${warnings})` : ''}`;
  return `${file}: invalid: ${[count(result.errors.length, 'error'), warnings].filter(Boolean).join(', ')}`;
}

function exitCode(results: readonly { result: ValidationResult }[]): number {
  const refused = results.find(({ result }) => result.refused)?.result.refused;
  if (refused) return exitCodeFor(refused);
  return results.every(({ result }) => result.errors.length === 0) ? EXIT.ok : EXIT.couldNotRun;
}

export async function runValidate(options: ValidateOptions, deps: ValidateDeps): Promise<number> {
  const results: { file: string; result: ValidationResult }[] = [];
  for (const file of options.files) results.push({ file, result: await untilAborted(deps.validateFile(file), deps.signal) });
  const allValid = results.every(({ result }) => result.errors.length === 0);

  if (options.json) {
    // Only the printable experiment: placeholders by name, never their values.
    const files = results.map(({ file, result }) => ({
      file,
      valid: result.errors.length === 0,
      ...(result.refused ? { error_code: result.refused } : {}),
      errors: result.errors,
      warnings: result.warnings,
      ...(result.printable ? { experiment: result.printable } : {}),
    }));
    deps.stdout.write(JSON.stringify({ valid: allValid, files }, null, 2) + '\n');
  } else {
    const colors = pc.createColors(deps.color);
    const paint = (severity: 'error' | 'warning', d: Diagnostic) => {
      const line = formatDiagnostic(d, severity);
      if (!deps.color) return line;
      return line.replace(`: ${severity}: `, `: ${severity === 'error' ? colors.red(severity) : colors.yellow(severity)}: `);
    };
    for (const { file, result } of results) {
      const lines = [...result.errors.map((d) => paint('error', d)), ...result.warnings.map((d) => paint('warning', d))];
      for (const line of lines) deps.stdout.write(line + '\n');
      deps.stdout.write(summary(file, result) + '\n');
    }
  }
  return exitCode(results);
}

/**
 * The real files and stdin, each read once, validated with placeholders from the environment. `stdin`
 * is asked for only when `-` is given (process.stdin is opened on first use).
 */
export function validateFromDisk(ctx: Pick<CliContext, 'env' | 'cwd' | 'signal'>, stdin: () => Readable): (file: string) => Promise<ValidationResult> {
  const resolverFor = asyncPlaceholderResolver(ctx);
  let fromStdin: Promise<ExperimentInput> | undefined;
  return async (file) => {
    const isStdin = file === '-';
    const input = isStdin ? await (fromStdin ??= readExperimentStream(stdin(), STDIN_NAME)) : await readExperimentFile(resolve(ctx.cwd, file));
    if (!isStdin && 'text' in input && looksLikeSuite(input.text)) {
      const { errors, warnings } = await validateSuiteAt(ctx.cwd, file, await resolverFor(input, true));
      return { errors, warnings };
    }
    // Diagnostics show the path as the user wrote it.
    return validateExperimentInput(input, isStdin ? STDIN_NAME : file, { resolveVariable: await resolverFor(input) });
  };
}

export function registerChaosValidateCommand(chaos: Command, reg: Registration): void {
  chaos
    .command('validate')
    .description('check experiment and suite files: every error and warning, located as file:line:column')
    .argument('<file...>', 'experiment or suite files (YAML); - reads an experiment from standard input')
    .option('--json', 'print the diagnostics as JSON', false)
    .addHelpText(
      'after',
      '\nExit status: 0 when every file is valid, 3 when any is not, 66 when a file was refused unread\n' +
        '(a FIFO, device or directory, or over 1 MiB); 130 on Ctrl-C, 143 on SIGTERM.\n' +
        '`${NAME}` in a value is taken from the environment and shown by its name only; NPM_REGISTRY_DOMAIN\n' +
        'defaults to the domain of `npm config get registry`.',
    )
    .action(async (files: string[], raw: { json: boolean }) => {
      const { ctx } = reg;
      const code = await runValidate(
        { files, json: raw.json },
        { stdout: ctx.stdout, color: ctx.isTTY && !ctx.env['NO_COLOR'], signal: ctx.signal, validateFile: validateFromDisk(ctx, () => process.stdin) },
      );
      reg.setExit(code);
    });
}
