// One repetition, as the spec's "How a run works" says: a run id and canary, a fresh workspace of the
// pinned commit with the gates carried in, a dedicated health-checked proxy, the agent in the sandbox
// under the abort monitor, verify unless aborted, then stop the proxy, keep the events and outputs
// next to the report and remove the worktree. Agent failure, verify failure and an injected fault are
// results; only the runner's own failures become `error` — and an events file the agent tampered
// with (events-mirror.ts), which cannot score it. Nothing is written into the user's project.
// An artifact that cannot be written (the disk holding the report is full) stops the agent — what
// it does can no longer be kept — and is the repetition's error, naming the directory; the clean-up
// still runs, so no container, proxy or worktree is left. So does a proxy that dies mid-repetition:
// the sandbox is stopped at once (verify skipped) and the proxy's last words are the error.
// Each phase is a module of repetition/; they hand on one RepetitionState, and reach the world only
// through RunnerDeps (effects.ts), so the order and the clean-up are tested on fakes.
import type { RepetitionContext, RepetitionOutcome } from '@intutic/queue';
import { runAgent } from './repetition/agent.ts';
import { cleanUpRepetition } from './repetition/clean-up.ts';
import { collectArtifacts, stopRepetitionProxy } from './repetition/collect.ts';
import type { RunnerDeps } from './repetition/deps.ts';
import { openRepetition } from './repetition/open.ts';
import { prepareWorkspace } from './repetition/prepare.ts';
import { startRepetitionProxy } from './repetition/proxy.ts';
import { outcomeOf, recordRunnerError, type RepetitionState } from './repetition/state.ts';
import { runVerify } from './repetition/verify.ts';

export { VERIFY_TIMEOUT_ENV, VERIFY_TIMEOUT_MS, verifyTimeoutMs, type RunnerDeps } from './repetition/deps.ts';

export async function runRepetition(ctx: RepetitionContext, deps: RunnerDeps): Promise<RepetitionOutcome> {
  const openedAt = deps.clock.now();
  const rep = await openRepetition(ctx, deps);
  rep.timings.push(['open', deps.clock.now() - openedAt]);
  const phase = timed(rep, deps);
  try {
    await phase('prepare', () => prepareWorkspace(rep, ctx, deps));
    await phase('proxy', () => startRepetitionProxy(rep, ctx, deps));
    await phase('agent', () => runAgent(rep, ctx, deps));
    await phase('verify', () => runVerify(rep, ctx, deps));
  } catch (caught) {
    await recordRunnerError(rep, ctx, caught);
  } finally {
    await ctx.setProgress({ phase: 'artifacts', run_id: rep.runId, canary: rep.canary, artifacts_dir: rep.artifacts.dir }).catch(() => undefined);
    // Whatever fails while the artifacts are collected, the containers and the worktree still go.
    try {
      await phase('artifacts', async () => {
        await stopRepetitionProxy(rep);
        await collectArtifacts(rep, ctx, deps);
      });
    } finally {
      await phase('clean-up', () => cleanUpRepetition(rep, ctx, deps));
    }
  }
  await ctx.log(`timings: ${rep.timings.map(([name, ms]) => `${name} ${Math.round(ms)} ms`).join(', ')}`).catch(() => undefined);
  return outcomeOf(rep, ctx, deps.clock.now());
}

/** Runs a phase and records how long it took, whether it finished or failed. */
function timed(rep: RepetitionState, deps: RunnerDeps) {
  return async (name: string, work: () => Promise<void>): Promise<void> => {
    const at = deps.clock.now();
    try {
      await work();
    } finally {
      rep.timings.push([name, deps.clock.now() - at]);
    }
  };
}
