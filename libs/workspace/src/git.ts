// The git facts a run is pinned to: the repository root, a clean working tree (naming every dirty
// path), HEAD's commit and an optional remote. Read-only: nothing here changes the user's repository.
// Every git of the workspace runs through `git()` below (simple-git).
import type { SimpleGitOptions } from 'simple-git';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { IntuticError } from '@intutic/errors';
import { onlyMcpWrapping } from './carry-in/merge.ts';
import { GATES_DIR, HOOK_SETTINGS_FILES, MCP_SETTINGS_FILE } from './carry-in/schema.ts';

export interface GitOptions {
  /**
   * simple-git's guards a call needs lifted (it refuses e.g. `--template` without
   * allowUnsafeTemplateDir); each caller names why. Nothing is lifted by default.
   */
  unsafe?: SimpleGitOptions['unsafe'];
}

/**
 * simple-git alone takes an exit without stderr for success (`rev-parse --verify --quiet`,
 * `cat-file -e`); as with git itself, any non-zero exit is a failure here.
 */
const failOnAnyExit: SimpleGitOptions['errors'] = (error, result) => {
  if (error !== undefined || result.exitCode === 0) return error;
  const output = Buffer.concat([...result.stdOut, ...result.stdErr]);
  return output.length > 0 ? output : new Error(`git exited with code ${result.exitCode}`);
};

/**
 * Run git in `cwd` and return stdout as it is (no trimming); throws simple-git's GitError, whose
 * message is git's output, on a non-zero exit. The environment is the process's own, untouched:
 * no `.env()`, which would also make simple-git refuse a user's EDITOR, PAGER or GIT_SSH_COMMAND.
 * No stdin: simple-git has none, and no workspace call needs it.
 * simple-git waits 50 ms more before it resolves a command that wrote nothing (it cannot tell that
 * from output still on its way): where time counts, as in every repetition's workspace, use a form
 * that prints (`cat-file -t`, no `--quiet`).
 */
export async function git(cwd: string, args: readonly string[], options: GitOptions = {}): Promise<string> {
  // Loaded on first use, not at the top: most `intutic` processes never run git.
  const { simpleGit } = await import('simple-git');
  return simpleGit({ baseDir: cwd, unsafe: options.unsafe ?? {}, errors: failOnAnyExit }).raw([...args]);
}

async function gitOrNull(cwd: string, args: readonly string[]): Promise<string | null> {
  try {
    return await git(cwd, args);
  } catch {
    return null;
  }
}

/** The top level of the work tree that contains `cwd`. */
export async function repoRoot(cwd: string): Promise<string> {
  const out = await gitOrNull(cwd, ['rev-parse', '--show-toplevel']);
  if (out === null || out.trim() === '') {
    throw new IntuticError('E_NOT_A_GIT_REPO', `${cwd} is not inside a git work tree`, {
      hints: ['Each repetition starts from a fresh worktree of HEAD, so the project must be a git repository with at least one commit.'],
    });
  }
  return out.trim();
}

/**
 * Every path `git status` reports: modified, staged, deleted, renamed, and untracked files that are
 * not ignored. Nothing is filtered out that the user did not ignore themselves.
 */
export async function dirtyPaths(repo: string): Promise<string[]> {
  const out = await git(repo, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules=none']);
  const fields = out.split('\0');
  const paths: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i]!;
    if (entry.length < 4) continue;
    const status = entry.slice(0, 2);
    paths.push(entry.slice(3));
    // A rename or copy is followed by its source path in the next field.
    if (status.includes('R') || status.includes('C')) i++;
  }
  return paths;
}

const SHOWN_DIRTY_PATHS = 20;

/**
 * What the runner carries into every repetition whether or not it is committed (the spec's "Bring
 * your agent"): the generated gates and the project-level hook settings files. They reach every
 * repetition, so they do not make the tree dirty; the spec expects them to be uncommitted.
 */
export function isCarriedInPath(path: string): boolean {
  return path.startsWith(`${GATES_DIR}/`) || path === '.intutic/.gitignore' || (HOOK_SETTINGS_FILES as readonly string[]).includes(path);
}

/** The project's .mcp.json changed only by connect's wrapping of the committed servers: the repetition gets that wrapping too. */
async function isConnectsMcpWrapping(repo: string): Promise<boolean> {
  const committed = await committedText(repo, 'HEAD', MCP_SETTINGS_FILE);
  const working = await readFile(join(repo, MCP_SETTINGS_FILE), 'utf8').catch(() => null);
  return committed !== null && working !== null && onlyMcpWrapping(committed, working);
}

/** Refuse a tree with uncommitted changes, naming them; carried-in files are not changes. */
export async function assertCleanTree(repo: string): Promise<void> {
  let dirty = (await dirtyPaths(repo)).filter((p) => !isCarriedInPath(p));
  if (dirty.includes(MCP_SETTINGS_FILE) && (await isConnectsMcpWrapping(repo))) dirty = dirty.filter((p) => p !== MCP_SETTINGS_FILE);
  if (dirty.length === 0) return;
  const shown = dirty.slice(0, SHOWN_DIRTY_PATHS).map((p) => `  ${p}`);
  if (dirty.length > SHOWN_DIRTY_PATHS) shown.push(`  … and ${dirty.length - SHOWN_DIRTY_PATHS} more`);
  throw new IntuticError('E_TREE_DIRTY', `the git working tree has uncommitted changes:\n${shown.join('\n')}`, {
    hints: [
      'Each repetition gets a fresh worktree of HEAD, so uncommitted changes would reach none of them.',
      'Commit or stash them, or add generated files to .gitignore (the gates, hook settings and .mcp.json wrapping intutic connect wrote are carried in either way).',
    ],
  });
}

/** HEAD's commit; a later commit must not change a queued run, so the run keeps this SHA. */
export async function pinHead(repo: string): Promise<string> {
  const out = await gitOrNull(repo, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  if (out === null || !/^[0-9a-f]{40,64}$/.test(out.trim())) {
    throw new IntuticError('E_NOT_A_GIT_REPO', `${repo} has no commit yet`, { hints: ['Commit the project first: every repetition starts from HEAD.'] });
  }
  return out.trim();
}

/**
 * A remote URL without the credentials it may carry (`https://user:token@host/…`): the URL travels in
 * the job payload, the report and the run's output, and nothing that travels holds a secret. A worker
 * that fetches from it uses its own credentials.
 */
export function withoutCredentials(url: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/@]*@)(.*)$/i.exec(url);
  return m ? m[1]! + m[3]! : url;
}

/** The fetch URL of `origin` (or the first remote), so a worker on another machine can get the commit. */
export async function gitRemote(repo: string): Promise<string | null> {
  const origin = await gitOrNull(repo, ['remote', 'get-url', 'origin']);
  if (origin !== null && origin.trim() !== '') return withoutCredentials(origin.trim());
  const remotes = (await gitOrNull(repo, ['remote']))?.split('\n').filter(Boolean) ?? [];
  if (remotes.length === 0) return null;
  const url = (await gitOrNull(repo, ['remote', 'get-url', remotes[0]!]))?.trim();
  return url ? withoutCredentials(url) : null;
}

export async function hasCommit(repo: string, sha: string): Promise<boolean> {
  // -t, not -e: a command that prints nothing costs simple-git's 50 ms wait (see git()).
  return (await gitOrNull(repo, ['cat-file', '-t', `${sha}^{commit}`]))?.trim() === 'commit';
}

/** The text of `path` (relative, posix) in `sha`'s tree, or null when it has none. */
export async function committedText(repo: string, sha: string, path: string): Promise<string | null> {
  return gitOrNull(repo, ['cat-file', 'blob', `${sha}:${path}`]);
}

/** Whether `path` (relative, posix) exists in `sha`'s tree. */
export async function commitHasPath(repo: string, sha: string, path: string): Promise<boolean> {
  return (await gitOrNull(repo, ['cat-file', '-t', `${sha}:${path}`])) !== null;
}
