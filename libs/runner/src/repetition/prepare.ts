// Phase 1, prepare: a fresh repository of the pinned commit with the gates carried in, git status
// clean as in the user's checkout. Where the commit comes from is in the intent log before the
// workspace is created. The events file the sandbox appends to and the sealed plan (faulted only)
// are written before it (prepareForProxy), for the proxy that starts beside it.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { compilePlan } from '@intutic/experiment';
import { sealPlanForFile } from '@intutic/faults';
import type { RepetitionContext } from '@intutic/queue';
import { carryInHiddenPaths, formatCarryIn } from '@intutic/workspace';
import { CHAOS_DIR_IN_WORKTREE } from '../paths.ts';
import { writeJobState } from '../state.ts';
import type { RunnerDeps } from './deps.ts';
import type { RepetitionState } from './state.ts';

export async function prepareWorkspace(rep: RepetitionState, ctx: RepetitionContext, deps: RunnerDeps): Promise<void> {
  const { payload } = ctx;
  const { paths } = rep;
  await ctx.setProgress({ phase: 'worktree', run_id: rep.runId, canary: rep.canary, artifacts_dir: rep.artifacts.dir });
  const source = await deps.workspace.resolveSource({
    repoPath: payload.repo.path,
    remote: payload.repo.remote,
    commit: payload.commit,
    cacheDir: join(deps.home, 'chaos', 'repos'),
  });
  rep.job.repo_source = source;
  await writeJobState(paths.state, rep.job);
  await deps.workspace.create(source, payload.commit, paths.worktree);
  await ctx.log(`workspace of ${payload.commit.slice(0, 12)} at ${paths.worktree} (a repository of its own, HEAD detached)`);
  const applied = await deps.workspace.applyCarryIn(paths.worktree, payload.carry_in, { governanceDir: paths.governance });
  rep.workspace = applied;
  rep.carriedIn = applied.entries;
  // One line per repetition (chaos run listed them one by one when the run started).
  const placeholders = applied.protection.placeholders.map(
    (file) => `${file}: an empty placeholder, read-only, so that no settings file can be added to turn the hooks off`,
  );
  const carried = [...formatCarryIn(rep.carriedIn), ...placeholders];
  if (carried.length > 0) await ctx.log(`carry-in (${carried.length}): ${carried.join('; ')}`);
  // git status is clean at the start, as in the user's checkout: what the runner put there is not the agent's.
  await deps.workspace.hide(paths.worktree, carryInHiddenPaths(applied, [CHAOS_DIR_IN_WORKTREE]));
}

/**
 * Before the proxy starts, which appends to the events file and reads the plan as it starts: the
 * events file, in the directory the workspace is then made in (it stays out of git status: hide), and
 * (faulted only) the plan, in the governance directory the sandbox reads read-only. The plan's canary
 * is sealed, so the literal reaches the agent only in an injected error.
 */
export async function prepareForProxy(rep: RepetitionState, ctx: RepetitionContext): Promise<void> {
  const { paths } = rep;
  await mkdir(paths.chaosDir, { recursive: true });
  // The gates in the sandbox append to the events file next to the host's proxy.
  await chmod(paths.chaosDir, 0o777);
  await writeFile(paths.events, '', { mode: 0o666 });
  await chmod(paths.events, 0o666);
  if (!rep.faulted) return;
  await mkdir(paths.governance, { recursive: true });
  const plan = sealPlanForFile(compilePlan(ctx.payload.experiment, rep.runId, rep.canary));
  await writeFile(paths.plan, JSON.stringify(plan, null, 2) + '\n', { mode: 0o644 });
}
