// `intutic connect`: install the hook gates into this project and register them with Claude Code,
// Codex, Cursor and Gemini CLI; wrap its MCP servers in the MCP proxy. `--dry-run` prints the diff only.
// What it changes is recorded first (.intutic/connect-undo.json) so `intutic disconnect` can undo it;
// `--git-exclude` keeps the files it creates out of `git status` through .git/info/exclude.
import { existsSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import type { Command } from 'commander';
import { applyConnect, nextUndoRecord, planConnect, readUndoRecord, renderConnectDiff, writeUndoRecord, type ConnectPlan } from '@intutic/gates';
import { gitExcludeFile, repoRoot, writeExcludeBlock } from '@intutic/workspace';
import type { Registration } from '../program.ts';
import type { CliContext } from '../context.ts';

export interface ConnectOptions {
  projectDir: string;
  dryRun: boolean;
  gitExclude: boolean;
}

/** Files connect creates outside .intutic/ (which ignores itself): the ones `git status` would list. */
export function createdOutsideIntutic(projectDir: string, plan: ConnectPlan): string[] {
  return plan.changes
    .filter((c) => c.before === null)
    .map((c) => relative(projectDir, c.path).split(sep).join('/'))
    .filter((p) => !p.startsWith('.intutic/'));
}

export async function runConnect(options: ConnectOptions, ctx: Pick<CliContext, 'stdout' | 'env'>): Promise<number> {
  const { projectDir } = options;
  const plan = planConnect(projectDir, ctx.env);
  const out = (s: string): void => void ctx.stdout.write(s + '\n');
  if (options.dryRun) {
    const diff = renderConnectDiff(plan);
    ctx.stdout.write(diff === '' ? `intutic connect: ${projectDir} is already connected; nothing would change.\n` : diff);
    return 0;
  }
  const previous = readUndoRecord(projectDir);
  const excludeFile = options.gitExclude ? await gitExcludeFile(projectDir) : null;
  const exclude = excludeFile === null ? null : { existed_before: existsSync(excludeFile) };
  // The record first: a connect stopped half way can still be undone.
  const record = nextUndoRecord(projectDir, previous, plan.changes, exclude);
  writeUndoRecord(projectDir, record);
  applyConnect(plan);
  if (plan.changes.length === 0) out(`intutic connect: ${projectDir} is already connected; nothing changed.`);
  for (const c of plan.changes) out(`${c.before === null ? 'created' : 'updated'} ${c.display}`);
  for (const { file, wrapped, alreadyWrapped, skipped } of plan.mcp) {
    if (wrapped.length) out(`MCP servers of ${file} now run through intutic-mcp-proxy: ${wrapped.join(', ')}`);
    if (alreadyWrapped.length) out(`MCP servers of ${file} already wrapped: ${alreadyWrapped.join(', ')}`);
    if (skipped.length) out(`MCP servers of ${file} not wrapped (not started as a command, e.g. HTTP): ${skipped.join(', ')}`);
  }
  const createdNow = createdOutsideIntutic(projectDir, plan);
  const created = record.files
    .filter((f) => f.before_b64 === null)
    .map((f) => f.path)
    .filter((p) => !p.startsWith('.intutic/'));
  if (excludeFile !== null) {
    const top = await repoRoot(projectDir);
    writeExcludeBlock(
      excludeFile,
      created.map((p) => relative(top, resolve(projectDir, p)).split(sep).join('/')),
    );
    if (created.length > 0) out(`kept out of git status (${excludeFile}): ${created.join(', ')}`);
  } else if (options.gitExclude) {
    out('intutic connect: not a git repository, so there is no .git/info/exclude to write; nothing else changes.');
  } else if (createdNow.length > 0) {
    out(
      `git status now lists ${createdNow.join(', ')}: chaos run carries them into every repetition either way. ` +
        'To keep them out of git status, run `intutic connect --git-exclude` (.git/info/exclude; your .gitignore is not touched).',
    );
  }
  out('`intutic disconnect` puts every file back as it was.');
  return 0;
}

export function registerConnectCommand(program: Command, reg: Registration): void {
  program
    .command('connect')
    .description(
      'install the intutic hook gates in this project (.intutic/hooks/) and register them for Claude Code, Codex, Cursor and Gemini CLI; wrap the MCP servers of .mcp.json and .gemini/settings.json in intutic-mcp-proxy',
    )
    .option('--dry-run', 'print the changes as a unified diff and write nothing', false)
    .option('--git-exclude', 'keep the files connect creates out of `git status` (.git/info/exclude, never your .gitignore)', false)
    .option('--dir <path>', 'the project directory (default: the current directory)')
    .action(async (opts: { dryRun: boolean; gitExclude: boolean; dir?: string }) => {
      reg.setExit(await runConnect({ projectDir: resolve(reg.ctx.cwd, opts.dir ?? '.'), dryRun: opts.dryRun, gitExclude: opts.gitExclude }, reg.ctx));
    });
}
