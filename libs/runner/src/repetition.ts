// One repetition, as the spec's "How a run works" says: a run id and canary, a fresh workspace of the
// pinned commit with the gates carried in and a dedicated health-checked proxy (made side by side),
// the agent in the sandbox under the abort monitor, verify unless aborted (its container started
// while the agent runs, its command after), then stop the proxy, keep the events and outputs next to
// the report and remove the worktree. Agent failure, verify failure and an injected fault are
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
import { prepareWorkspace, prepareForProxy } from './repetition/prepare.ts';
import { sandboxSpec, startRepetitionProxy } from './repetition/proxy.ts';
import { outcomeOf, recordRunnerError, type RepetitionState } from './repetition/state.ts';
import { runVerify } from './repetition/verify.ts';

export { VERIFY_TIMEOUT_ENV, VERIFY_TIMEOUT_MS, verifyTimeoutMs, type RunnerDeps } from './repetition/deps.ts';

export async function runRepetition(ctx: RepetitionContext, deps: RunnerDeps): Promise<RepetitionOutcome> {
  const openedAt = deps.clock.now();
  const rep = await openRepetition(ctx, deps);
  rep.timings.push(['open', deps.clock.now() - openedAt]);
  const phase = timed(rep, deps);
  try {
    await prepareForProxy(rep, ctx);
    // The workspace is made while the proxy starts: neither needs the other, the sandbox needs both.
    await bothSettled(
      phase('prepare', () => prepareWorkspace(rep, ctx, deps)),
      phase('proxy', () => startRepetitionProxy(rep, ctx, deps)),
    );
    rep.sandbox = sandboxSpec(rep, ctx, deps);
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

/**
 * Waits for both, then fails with the first one's error, else the second's: a proxy that started
 * beside a workspace that failed is known to the clean-up (rep.proxy) before it runs.
 */
async function bothSettled(first: Promise<void>, second: Promise<void>): Promise<void> {
  const [a, b] = await Promise.allSettled([first, second]);
  if (a.status === 'rejected') throw a.reason;
  if (b.status === 'rejected') throw b.reason;
}

/** Runs a phase and records how long it took, whether it finished or failed. */
function timed(rep: RepetitionState, deps: RunnerDeps) {
  return async (name: string, work: () => Promise<void>): Promise<void> => {
    const at = deps.clock.now();
    // In the order the phases started (prepare and proxy run side by side).
    const timing: [string, number] = [name, 0];
    rep.timings.push(timing);
    try {
      await work();
    } finally {
      timing[1] = deps.clock.now() - at;
    }
  };
}
