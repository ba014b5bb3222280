// `intutic connect`: install the hook gates into this project and register them with Claude Code,
// Codex, Cursor and Gemini CLI; wrap its MCP servers in the MCP proxy. `--dry-run` prints the diff only.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { applyConnect, planConnect, renderConnectDiff } from '@intutic/gates';
import type { Registration } from '../program.ts';
import type { CliContext } from '../context.ts';

export interface ConnectOptions {
  projectDir: string;
  dryRun: boolean;
}

export function runConnect(options: ConnectOptions, ctx: Pick<CliContext, 'stdout' | 'env'>): number {
  const plan = planConnect(options.projectDir, ctx.env);
  const out = (s: string): void => void ctx.stdout.write(s + '\n');
  if (options.dryRun) {
    const diff = renderConnectDiff(plan);
    ctx.stdout.write(diff === '' ? `intutic connect: ${options.projectDir} is already connected; nothing would change.\n` : diff);
    return 0;
  }
  applyConnect(plan);
  if (plan.changes.length === 0) out(`intutic connect: ${options.projectDir} is already connected; nothing changed.`);
  for (const c of plan.changes) out(`${c.before === null ? 'created' : 'updated'} ${c.display}`);
  for (const { file, wrapped, alreadyWrapped, skipped } of plan.mcp) {
    if (wrapped.length) out(`MCP servers of ${file} now run through intutic-mcp-proxy: ${wrapped.join(', ')}`);
    if (alreadyWrapped.length) out(`MCP servers of ${file} already wrapped: ${alreadyWrapped.join(', ')}`);
    if (skipped.length) out(`MCP servers of ${file} not wrapped (not started as a command, e.g. HTTP): ${skipped.join(', ')}`);
  }
  return 0;
}

export function registerConnectCommand(program: Command, reg: Registration): void {
  program
    .command('connect')
    .description(
      'install the intutic hook gates in this project (.intutic/hooks/) and register them for Claude Code, Codex, Cursor and Gemini CLI; wrap the MCP servers of .mcp.json and .gemini/settings.json in intutic-mcp-proxy',
    )
    .option('--dry-run', 'print the changes as a unified diff and write nothing', false)
    .option('--dir <path>', 'the project directory (default: the current directory)')
    .action((opts: { dryRun: boolean; dir?: string }) => {
      reg.setExit(runConnect({ projectDir: resolve(reg.ctx.cwd, opts.dir ?? '.'), dryRun: opts.dryRun }, reg.ctx));
    });
}
