// `intutic chaos init [fault-id]`: a commented starter experiment for the project in the current
// directory, written to chaos/<fault-id>.yaml (or --out), which `chaos validate` accepts unchanged.
// An existing file is never overwritten (exit 73); the file appears whole or not at all (a temp file
// linked into place); an unknown fault id is a usage error (64) that names the known ones.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { link, mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import type { Command } from 'commander';
import { EXIT, IntuticError, isDiskFull, writeFailure } from '@intutic/errors';
import { DEFAULT_STARTER_FAULT, nearestFaultId, starterExperiment } from '@intutic/experiment';
import { FAULT_IDS, isFaultId, type FaultId } from '@intutic/faults';
import type { Registration } from '../program.ts';

export interface InitOptions {
  /** As given; absent picks the default fault, and the starter lists the others. */
  faultId?: string;
  /** As given (relative to cwd); absent: chaos/<fault-id>.yaml. */
  out?: string;
  /** The project's directory: the experiment is named after it and written under it. */
  cwd: string;
}

export interface InitDeps {
  stdout: Writable;
  /** Creates the file with the text, whole or not at all; throws E_FILE_EXISTS when it is there. */
  writeNewFile: (path: string, text: string) => Promise<void>;
  /** The project's test command, when its files say what it is. */
  testCommand: (dir: string) => string | undefined;
}

/** verify when the project's test command is not known: fails until it is replaced. */
const VERIFY_PLACEHOLDER = 'test -f TODO-a-file-the-task-creates';

function starterFaultId(word: string | undefined): FaultId {
  if (word === undefined) return DEFAULT_STARTER_FAULT;
  if (isFaultId(word)) return word;
  const guess = nearestFaultId(word);
  throw new IntuticError('E_USAGE', `unknown fault id "${word}"${guess ? ` (did you mean "${guess}"?)` : ''}`, {
    hints: [`the fault ids: ${FAULT_IDS.join(', ')}`, '`intutic chaos list` says what each one does'],
  });
}

export async function runInit(options: InitOptions, deps: InitDeps): Promise<number> {
  const faultId = starterFaultId(options.faultId);
  const path = resolve(options.cwd, options.out ?? join('chaos', `${faultId}.yaml`));
  // Shown as the user would type it from here: relative inside the project, absolute outside it.
  const inside = relative(options.cwd, path);
  const shown = inside.startsWith('..') || isAbsolute(inside) ? path : inside;
  const text = starterExperiment({
    faultId,
    project: basename(options.cwd),
    verify: deps.testCommand(options.cwd) ?? VERIFY_PLACEHOLDER,
    file: shown,
    defaulted: options.faultId === undefined,
  });
  await deps.writeNewFile(path, text);
  deps.stdout.write(
    `wrote ${shown}: a starter experiment for ${faultId}\n` +
      `next: replace its TODOs (the agent's task, verify), then\n` +
      `  intutic chaos validate ${shown}\n` +
      `  intutic chaos run ${shown} --sandbox-image <your agent's image>\n`,
  );
  return EXIT.ok;
}

/** The test command a project's own files name: npm, Python, Go, Rust or make. */
export function projectTestCommand(dir: string): string | undefined {
  const has = (name: string) => existsSync(join(dir, name));
  if (has('package.json')) {
    try {
      const scripts = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { scripts?: Record<string, unknown> }).scripts;
      if (typeof scripts?.['test'] === 'string') return 'npm test';
    } catch {
      // Not JSON: no test command to take from it.
    }
  }
  if (has('pyproject.toml') || has('setup.py') || has('pytest.ini')) return 'python3 -m pytest';
  if (has('go.mod')) return 'go test ./...';
  if (has('Cargo.toml')) return 'cargo test';
  if (has('Makefile')) return 'make test';
  return undefined;
}

/**
 * Writes a temp file beside the target, then hard-links it into place: link fails with EEXIST where
 * a rename would replace, so even a file created meanwhile is never overwritten, and the target is
 * never seen half-written.
 */
export async function writeNewFileAtomically(path: string, text: string): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(temp, text, { mode: 0o644, flag: 'wx' });
    await link(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST' && existsSync(path)) {
      throw new IntuticError('E_FILE_EXISTS', `${path} already exists: chaos init never overwrites a file`, {
        hints: ['name another file with --out <file>, or move this one away first'],
      });
    }
    if (isDiskFull(error)) throw writeFailure(dir, basename(path), error);
    throw new IntuticError('E_USAGE', `cannot write ${path}: ${(error as Error).message}`);
  } finally {
    // Gone whatever happened; where the directory could not be made, there is nothing to remove.
    await rm(temp, { force: true }).catch(() => undefined);
  }
}

export function registerChaosInitCommand(chaos: Command, reg: Registration): void {
  chaos
    .command('init')
    .description('write a commented starter experiment for this repository, which chaos validate accepts as it is')
    .argument('[fault-id]', `the fault it injects (default ${DEFAULT_STARTER_FAULT}; \`intutic chaos list\` shows them all)`)
    .option('--out <file>', 'the file to write (default chaos/<fault-id>.yaml); never overwritten')
    .addHelpText(
      'after',
      '\nThe starter holds every option of the fault with its default, probes that fit it, the cost ceiling\n' +
        '(cost_usd_above), and a Claude Code agent line with a placeholder task: replace the TODOs.\n' +
        'Exit status: 0 written, 64 for an unknown fault id, 73 when the file exists (it is left as it is).',
    )
    .action(async (faultId: string | undefined, raw: { out?: string }) => {
      const { ctx } = reg;
      const code = await runInit(
        { cwd: ctx.cwd, ...(faultId !== undefined ? { faultId } : {}), ...(raw.out !== undefined ? { out: raw.out } : {}) },
        { stdout: ctx.stdout, writeNewFile: writeNewFileAtomically, testCommand: projectTestCommand },
      );
      reg.setExit(code);
    });
}
