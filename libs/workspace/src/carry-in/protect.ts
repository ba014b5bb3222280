// What the sandbox must keep the agent from changing in a repetition's worktree once the carry-in is
// applied: the gates' directory .intutic (whole: a directory between /work and the gates that the agent
// could chmod shut would make them unreachable), with its events/ log left as a writable hole, and
// every hook settings file there is. Claude Code merges settings.json with settings.local.json, so a
// settings file the agent could add would still turn the hooks off (disableAllHooks): when only one of
// the two is there, the other is created as an empty placeholder ({}) and protected too.
import { chmod, lstat, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IntuticError } from '@intutic/errors';
import { GATES_DIR, HOOK_SETTINGS_FILES } from './schema.ts';

export const GATES_LOG_DIR = '.intutic/events';
const CLAUDE_SETTINGS = ['.claude/settings.json', '.claude/settings.local.json'];

export interface GovernanceProtection {
  /** Worktree-relative paths mounted read-only over themselves. */
  readOnly: string[];
  /** Worktree-relative directories that stay writable, as mount points of their own (the gates' log). */
  pinned: string[];
  /** Files created only to be protected (an empty settings file), for the repetition's log. */
  placeholders: string[];
}

async function lstatOrNull(path: string) {
  return lstat(path).catch(() => null);
}

/** No step of `rel` under `root` may be a symlink: writing through one, or mounting one, could reach outside the worktree. */
export async function assertNoSymlink(root: string, rel: string): Promise<void> {
  const parts = rel.split('/');
  for (let i = 1; i <= parts.length; i++) {
    const step = parts.slice(0, i).join('/');
    if ((await lstatOrNull(join(root, step)))?.isSymbolicLink()) {
      throw new IntuticError('E_CONFIG_INVALID', `refusing to carry in ${rel}: ${step} is a symlink in the commit`, {
        hints: ['Governance files (gates, hook settings) must be real files: commit them as files, or leave them uncommitted.'],
      });
    }
  }
}

/**
 * a+rX under `path`: the agent's user reads what it cannot own (a read-only mount is not lent to it),
 * whatever umask the worktree was checked out with. git tracks only the executable bit, which X adds
 * to nothing that had none.
 */
async function makeReadable(path: string): Promise<void> {
  const info = await lstatOrNull(path);
  if (!info || info.isSymbolicLink()) return;
  const wanted = info.mode | (info.isDirectory() ? 0o555 : info.mode & 0o111 ? 0o555 : 0o444);
  if ((wanted & 0o7777) !== (info.mode & 0o7777)) await chmod(path, wanted & 0o7777);
  if (info.isDirectory()) await Promise.all((await readdir(path)).map((name) => makeReadable(join(path, name))));
}

export async function protectGovernance(worktree: string): Promise<GovernanceProtection> {
  const protection: GovernanceProtection = { readOnly: [], pinned: [], placeholders: [] };
  await assertNoSymlink(worktree, GATES_DIR);
  if ((await lstatOrNull(join(worktree, GATES_DIR)))?.isDirectory()) {
    await assertNoSymlink(worktree, GATES_LOG_DIR);
    const log = join(worktree, GATES_LOG_DIR);
    await mkdir(log, { recursive: true });
    if (!(await lstat(log)).isDirectory()) throw new IntuticError('E_CONFIG_INVALID', `the gates' log ${GATES_LOG_DIR} is not a directory in the commit`);
    protection.readOnly.push('.intutic');
    protection.pinned.push(GATES_LOG_DIR);
  }
  const isFile = await Promise.all(
    HOOK_SETTINGS_FILES.map(async (file) => {
      await assertNoSymlink(worktree, file);
      return (await lstatOrNull(join(worktree, file)))?.isFile() === true;
    }),
  );
  const present: string[] = HOOK_SETTINGS_FILES.filter((_, i) => isFile[i]);
  if (CLAUDE_SETTINGS.some((file) => present.includes(file))) {
    for (const file of CLAUDE_SETTINGS.filter((f) => !present.includes(f))) {
      await writeFile(join(worktree, file), '{}\n', { mode: 0o644 });
      protection.placeholders.push(file);
      present.push(file);
    }
  }
  protection.readOnly.push(...present);
  await Promise.all(protection.readOnly.map((path) => makeReadable(join(worktree, path))));
  return protection;
}
