// Phase 6, clean up: the job's containers, its worktree (unless --keep) and its directory, through
// the same cleanupJob a worker's sweep uses after a dead worker. It runs after every repetition,
// whatever failed before it; the proxy was stopped first (stopRepetitionProxy).
import type { RepetitionContext } from '@intutic/queue';
import { cleanupJob } from '../cleanup.ts';
import type { RunnerDeps } from './deps.ts';
import type { RepetitionState } from './state.ts';
import { discardHeldVerify } from './verify.ts';

export async function cleanUpRepetition(rep: RepetitionState, ctx: RepetitionContext, deps: RunnerDeps): Promise<void> {
  const { keep } = ctx.payload;
  await discardHeldVerify(rep);
  await cleanupJob(rep.paths.dir, rep.job, deps, { keepWorktree: keep });
  if (keep)
    await ctx.log(
      `--keep: the workspace stays at ${rep.paths.worktree} (its .git was the agent's to change: mind what its config runs; remove it with: rm -rf ${rep.paths.worktree})`,
    );
}
