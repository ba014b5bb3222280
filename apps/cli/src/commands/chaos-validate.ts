// `intutic chaos validate <file…>`: every problem of every file as `file:line:column: error: …`
// (warnings likewise), one summary line per file; exit 0 when all are valid, 3 otherwise.
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import pc from 'picocolors';
import { EXIT } from '@intutic/errors';
import { environmentResolver, formatDiagnostic, validateExperimentFile, type Diagnostic, type ResolveVariable, type ValidationResult } from '@intutic/experiment';
import type { Registration } from '../cli.ts';
import type { CliContext } from '../context.ts';

export interface ValidateOptions {
  files: string[];
  json: boolean;
}

export interface ValidateDeps {
  stdout: Writable;
  color: boolean;
  validateFile: (file: string) => Promise<ValidationResult>;
}

/**
 * `${NPM_REGISTRY_DOMAIN}` and the like, from the environment; the registry's domain from
 * `npm config get registry` when the environment does not set it (npm runs only if a file asks).
 */
export function cliPlaceholderResolver(ctx: Pick<CliContext, 'env' | 'cwd'>): ResolveVariable {
  return environmentResolver(ctx.env, () => {
    try {
      return execFileSync('npm', ['config', 'get', 'registry'], { cwd: ctx.cwd, env: ctx.env, encoding: 'utf8', timeout: 20_000, stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      return undefined;
    }
  });
}

function summary(file: string, result: ValidationResult): string {
  const count = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const warnings = result.warnings.length > 0 ? count(result.warnings.length, 'warning') : '';
  if (result.errors.length === 0) return `${file}: valid${warnings ? ` (${warnings})` : ''}`;
  return `${file}: invalid: ${[count(result.errors.length, 'error'), warnings].filter(Boolean).join(', ')}`;
}

export async function runValidate(options: ValidateOptions, deps: ValidateDeps): Promise<number> {
  const results: { file: string; result: ValidationResult }[] = [];
  for (const file of options.files) results.push({ file, result: await deps.validateFile(file) });
  const allValid = results.every(({ result }) => result.errors.length === 0);

  if (options.json) {
    const files = results.map(({ file, result }) => ({
      file,
      valid: result.errors.length === 0,
      errors: result.errors,
      warnings: result.warnings,
      ...(result.experiment ? { experiment: result.experiment } : {}),
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
  return allValid ? EXIT.ok : EXIT.couldNotRun;
}

export function registerChaosValidateCommand(chaos: Command, reg: Registration): void {
  chaos
    .command('validate')
    .description('check experiment files: every error and warning, located as file:line:column')
    .argument('<file...>', 'experiment files (YAML)')
    .option('--json', 'print the diagnostics as JSON', false)
    .addHelpText('after', '\nExit status: 0 when every file is valid, 3 when any is not.\n`${NAME}` in a value is taken from the environment; NPM_REGISTRY_DOMAIN defaults to the domain of `npm config get registry`.')
    .action(async (files: string[], raw: { json: boolean }) => {
      const { ctx } = reg;
      const resolveVariable = cliPlaceholderResolver(ctx);
      const code = await runValidate(
        { files, json: raw.json },
        {
          stdout: ctx.stdout,
          color: ctx.isTTY && !ctx.env['NO_COLOR'],
          validateFile: async (file) => {
            const result = await validateExperimentFile(resolve(ctx.cwd, file), { resolveVariable });
            // Show the path as the user wrote it.
            const rename = (d: Diagnostic): Diagnostic => ({ ...d, file });
            return { ...result, errors: result.errors.map(rename), warnings: result.warnings.map(rename) };
          },
        },
      );
      reg.setExit(code);
    });
}
