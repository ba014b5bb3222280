// A repetition's workspace: a standalone git repository of the pinned commit, one per repetition, and
// its removal (also of one a dead worker left). Standalone because the sandbox mounts only the
// workspace: a `git worktree`'s .git file names the project's repository, which is not there, so git
// failed in the sandbox; and the agent must not reach the project's .git anyway. The clone copies
// objects (no hardlinks: the sandbox chowns the workspace, and a hardlinked object is the project's
// own file), its branches and tags, and nothing of the project's git config or hooks. The project is
// only read; its .git stays byte-for-byte as it was.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { IntuticError } from '@intutic/errors';
import { git, hasCommit } from './git.ts';

/** Who the agent's commits are by: the sandbox has no user-level git config. */
export const SANDBOX_COMMITTER = { name: 'intutic sandbox', email: 'sandbox@intutic.invalid' } as const;

/**
 * The only keys of the clone's own config that survive: what git probed for this filesystem and the
 * repository format. Everything else (a remote URL, a credential helper, an include, hooksPath,
 * fsmonitor, sshCommand…) could carry a secret or run code in the sandbox, and is dropped.
 */
const KEPT_CONFIG = new Set([
  'core.repositoryformatversion',
  'core.filemode',
  'core.symlinks',
  'core.ignorecase',
  'core.precomposeunicode',
  'extensions.objectformat',
]);

/** The clone's config, from scratch: the kept keys, a non-bare work tree, and the sandbox's committer. */
function cleanConfig(listed: string): string {
  const sections = new Map<string, string[]>([
    ['core', []],
    ['extensions', []],
    ['user', []],
  ]);
  for (const entry of listed.split('\0')) {
    const nl = entry.indexOf('\n');
    const key = (nl < 0 ? entry : entry.slice(0, nl)).toLowerCase();
    const value = nl < 0 ? 'true' : entry.slice(nl + 1);
    if (!KEPT_CONFIG.has(key) || !/^[\w.-]*$/.test(value)) continue;
    const [section, name] = key.split('.') as [string, string];
    sections.get(section)!.push(`\t${name} = ${value}`);
  }
  sections.get('core')!.push('\tbare = false', '\tlogallrefupdates = true');
  sections.get('user')!.push(`\tname = ${SANDBOX_COMMITTER.name}`, `\temail = ${SANDBOX_COMMITTER.email}`);
  return [...sections]
    .filter(([, lines]) => lines.length > 0)
    .map(([section, lines]) => `[${section}]\n${lines.join('\n')}\n`)
    .join('');
}

/**
 * Make `path` a standalone repository with the project's history (its branches and tags), HEAD
 * detached at `sha` and the work tree checked out. `source` is the project or a cache clone of its
 * remote; it is only read.
 */
export async function createWorkspace(source: string, sha: string, path: string): Promise<void> {
  const gitDir = join(path, '.git');
  try {
    await mkdir(dirname(path), { recursive: true });
    // --bare: branches and tags as they are in the project (no origin/* to rename, no stash); --local
    // copies the object files, which is what makes this as quick as a worktree; --dissociate copies
    // what the project borrows through alternates, which would name a host path.
    // An empty template on purpose (no hooks, no config from init.templateDir): simple-git guards --template.
    // Not --quiet, here and in checkout: simple-git waits 50 ms more after a command that printed nothing.
    await git(dirname(path), ['clone', '--bare', '--local', '--no-hardlinks', '--template=', '--dissociate', source, gitDir], {
      unsafe: { allowUnsafeTemplateDir: true },
    });
    const listed = await git(gitDir, ['config', '--local', '--list', '-z']);
    await writeFile(join(gitDir, 'config'), cleanConfig(listed));
    await git(path, ['-c', 'advice.detachedHead=false', 'checkout', '--force', '--detach', sha]);
  } catch (error) {
    await rm(path, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined);
    throw new IntuticError('E_NOT_A_GIT_REPO', `could not create the workspace of ${sha.slice(0, 12)} at ${path}`, {
      cause: error,
      hints: [String((error as Error).message ?? error).trim()],
    });
  }
}

/**
 * Keep what the runner put into the workspace out of `git status`, `git add -A` and `git stash`, so
 * the agent and verify find the tree clean: `untracked` paths (a trailing / for a directory) go to
 * the clone's .git/info/exclude; `tracked` files the runner rewrote in place are marked
 * skip-worktree. Written on the host before the sandbox starts; the project's own ignore files are
 * untouched.
 */
export async function hideFromGit(path: string, files: { untracked: readonly string[]; tracked: readonly string[] }): Promise<void> {
  const patterns = files.untracked.map((p) => `/${p.replace(/^\/+/, '').replace(/([*?[\\!#])/g, '\\$1')}`);
  await mkdir(join(path, '.git', 'info'), { recursive: true });
  await writeFile(join(path, '.git', 'info', 'exclude'), ["# what the intutic runner carried in: not the agent's changes", ...patterns, ''].join('\n'));
  // update-index prints nothing, and simple-git waits 50 ms more after a command that printed
  // nothing (git()): the last path, `.` (the root, which is no file), makes git say "Ignoring path"
  // on stderr and go on, exit 0.
  if (files.tracked.length > 0) await git(path, ['update-index', '--skip-worktree', '--', ...files.tracked, '.']);
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
 * Remove a workspace whatever state it is in: with files the agent wrote, read-only directories, or
 * already half deleted. Safe to call twice. `legacyRepo` is the repository an older version added
 * the workspace to as a `git worktree`: when `path` is still registered there, that registration is
 * removed too (nothing else in the project is written; a standalone workspace is never registered).
 */
export async function removeWorkspace(legacyRepo: string | null, path: string): Promise<void> {
  const registered = legacyRepo !== null && existsSync(legacyRepo) && (await listWorktrees(legacyRepo).catch((): string[] => [])).includes(path);
  if (registered) {
    await git(legacyRepo, ['worktree', 'remove', '--force', '--force', path]).catch(() => undefined);
  }
  await rm(path, { recursive: true, force: true, maxRetries: 3 });
  if (registered) await git(legacyRepo, ['worktree', 'prune']).catch(() => undefined);
}

/**
 * The bare cache clone of `remote` under `cacheDir`, made once. Workers sharing a home may need it
 * at the same moment: each clones into a directory of its own and renames it into place, so the
 * first rename wins, the others use the winner's, and no worker ever reads a half-made clone.
 */
async function cacheCloneOf(remote: string, cacheDir: string): Promise<string> {
  const name = `${createHash('sha256').update(remote).digest('hex').slice(0, 16)}.git`;
  const cache = resolve(cacheDir, name);
  if (existsSync(cache)) return cache;
  await mkdir(cacheDir, { recursive: true });
  const staging = await mkdtemp(join(cacheDir, `.${name}-`));
  try {
    await git(cacheDir, ['clone', '--bare', '--quiet', remote, staging]);
    await rename(staging, cache).catch((error: unknown) => {
      if (!existsSync(cache)) throw error;
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return cache;
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
      hints: [
        'Run the worker on the machine that holds the project, or push the commit to a remote the worker can fetch.',
        'A docker-compose worker reaches only the projects under your home: mount one elsewhere at its own path (docs/operations.md).',
      ],
    });
  }
  const cache = await cacheCloneOf(remote, cacheDir);
  if (!(await hasCommit(cache, commit))) await git(cache, ['fetch', '--quiet', 'origin', commit]);
  if (!(await hasCommit(cache, commit))) {
    throw new IntuticError('E_NOT_A_GIT_REPO', `commit ${commit.slice(0, 12)} was not found in ${remote}`, {
      hints: ['Push the commit the run was enqueued with.'],
    });
  }
  return cache;
}

export const worktreeDirName = 'worktree';
export function worktreePathIn(jobDir: string): string {
  return join(jobDir, worktreeDirName);
}
