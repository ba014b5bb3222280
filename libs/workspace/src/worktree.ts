// Fresh detached worktrees of a pinned commit, one per repetition, and their removal (also of
// worktrees a dead worker left). Only the repository's own worktree bookkeeping (.git/worktrees)
// changes; the user's working tree is never touched.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { IntuticError } from '@intutic/errors';
import { git, hasCommit } from './git.ts';

export async function addWorktree(repo: string, sha: string, path: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  try {
    await git(repo, ['worktree', 'add', '--detach', path, sha]);
  } catch (error) {
    throw new IntuticError('E_NOT_A_GIT_REPO', `could not create a worktree of ${sha.slice(0, 12)} at ${path}`, {
      cause: error,
      hints: [String((error as { stderr?: string }).stderr ?? error).trim()],
    });
  }
}

/** The worktree paths git knows for `repo` (the main work tree first). */
export async function listWorktrees(repo: string): Promise<string[]> {
  const out = await git(repo, ['worktree', 'list', '--porcelain']);
  return out
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .map((line) => line.slice('worktree '.length));
}

/**
 * Remove a worktree whatever state it is in: registered or not, locked, with untracked files the
 * agent wrote, or already half deleted. Safe to call twice.
 */
export async function removeWorktree(repo: string | null, path: string): Promise<void> {
  if (repo !== null && existsSync(repo)) {
    try {
      await git(repo, ['worktree', 'remove', '--force', '--force', path]);
    } catch {
      // Not registered any more, or git refused: the directory is removed below either way.
    }
  }
  await rm(path, { recursive: true, force: true, maxRetries: 3 });
  if (repo !== null && existsSync(repo)) {
    try {
      await git(repo, ['worktree', 'prune']);
    } catch {
      // A repository that is gone has nothing to prune.
    }
  }
}

/**
 * Where a worker gets the pinned commit: the local repository when it has it, else a bare cache
 * clone of the remote under `cacheDir` (a worker on another machine).
 */
export async function resolveCommitSource(options: { repoPath: string; remote: string | null; commit: string; cacheDir: string }): Promise<string> {
  const { repoPath, remote, commit, cacheDir } = options;
  if (existsSync(repoPath) && (await hasCommit(repoPath, commit).catch(() => false))) return repoPath;
  if (remote === null) {
    throw new IntuticError('E_NOT_A_GIT_REPO', `commit ${commit.slice(0, 12)} is not available: ${repoPath} does not have it and the run names no git remote`, {
      hints: ['Run the worker on the machine that holds the project, or push the commit to a remote the worker can fetch.'],
    });
  }
  const cache = resolve(cacheDir, `${createHash('sha256').update(remote).digest('hex').slice(0, 16)}.git`);
  if (!existsSync(cache)) {
    await mkdir(cacheDir, { recursive: true });
    await git(cacheDir, ['clone', '--bare', '--quiet', remote, cache]);
  }
  if (!(await hasCommit(cache, commit))) await git(cache, ['fetch', '--quiet', 'origin', commit]);
  if (!(await hasCommit(cache, commit))) {
    throw new IntuticError('E_NOT_A_GIT_REPO', `commit ${commit.slice(0, 12)} was not found in ${remote}`, { hints: ['Push the commit the run was enqueued with.'] });
  }
  return cache;
}

export const worktreeDirName = 'worktree';
export function worktreePathIn(jobDir: string): string {
  return join(jobDir, worktreeDirName);
}
