// `intutic disconnect`: undo `intutic connect` from its record: every file it wrote back to its bytes
// and mode before (or removed, when connect created it), the directories it created removed when empty,
// and its block in .git/info/exclude taken out. A file edited since connect is not reverted without --force.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { applyDisconnect, planDisconnect } from '@intutic/gates';
import { gitExcludeFile, writeExcludeBlock } from '@intutic/workspace';
import type { Registration } from '../program.ts';
import type { CliContext } from '../context.ts';

export interface DisconnectOptions {
  projectDir: string;
  force: boolean;
}

export async function runDisconnect(options: DisconnectOptions, ctx: Pick<CliContext, 'stdout'>): Promise<number> {
  const plan = planDisconnect(options.projectDir);
  applyDisconnect(options.projectDir, plan, { force: options.force });
  const out = (s: string): void => void ctx.stdout.write(s + '\n');
  if (plan.record.git_exclude !== null) {
    const excludeFile = await gitExcludeFile(options.projectDir);
    if (excludeFile !== null) writeExcludeBlock(excludeFile, [], { existedBefore: plan.record.git_exclude.existed_before });
  }
  for (const r of plan.restores) out(`${r.bytes === null ? 'removed' : 'restored'} ${r.path}`);
  out(`intutic disconnect: ${options.projectDir} is as it was before intutic connect.`);
  return 0;
}

export function registerDisconnectCommand(program: Command, reg: Registration): void {
  program
    .command('disconnect')
    .description('undo intutic connect: restore every file it changed, byte for byte, and remove what it created')
    .option('--force', 'also restore files edited since connect wrote them (those edits are lost)', false)
    .option('--dir <path>', 'the project directory (default: the current directory)')
    .action(async (opts: { force: boolean; dir?: string }) => {
      reg.setExit(await runDisconnect({ projectDir: resolve(reg.ctx.cwd, opts.dir ?? '.'), force: opts.force }, reg.ctx));
    });
}
