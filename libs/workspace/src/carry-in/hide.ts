// Which of the runner's own files in a workspace git must not show as changes: the carried-in files
// the commit lacks, the placeholder settings, the gates' log, and the runner's own directories (all
// untracked, so excluded), and committed files the carry-in rewrote or merged in place (marked skip-worktree).
// The agent and verify then find `git status` clean at the start, as in the user's checkout.
import type { AppliedCarryIn } from './apply.ts';
import { GATES_LOG_DIR } from './protect.ts';

export interface GitHiddenPaths {
  /** Workspace-relative; a trailing / names a directory and everything that will be in it. */
  untracked: string[];
  tracked: string[];
}

export function carryInHiddenPaths(applied: AppliedCarryIn, runnerDirs: readonly string[]): GitHiddenPaths {
  // Policy files live outside the workspace (an absolute /intutic/... path): nothing to hide.
  const inWorkspace = applied.entries.filter((e) => !e.path.startsWith('/'));
  return {
    untracked: [
      ...inWorkspace.filter((e) => e.action === 'carried_in').map((e) => e.path),
      ...applied.protection.placeholders,
      `${GATES_LOG_DIR}/`,
      ...runnerDirs.map((d) => `${d.replace(/\/+$/, '')}/`),
    ],
    tracked: inWorkspace.filter((e) => e.action === 'merged' || (e.action === 'kept_committed' && e.rewritten)).map((e) => e.path),
  };
}
