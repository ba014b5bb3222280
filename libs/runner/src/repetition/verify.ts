// Phase 4, verify: the experiment's verify in a fresh container on the agent's workspace, under its
// own time budget, unless the agent was stopped (abort, cancel) or the runner already failed. The
// container is started while the agent runs (holdVerify) and released once the agent's command is
// over (its exit trailer, or its container gone), so that a repetition waits for one container start,
// not two, and not for the engine's tear-down of the agent's; its command runs only then.
import { exitedBySignal, type SandboxRunOptions } from '@intutic/sandbox';
import type { RepetitionContext } from '@intutic/queue';
import { containerName } from '../paths.ts';
import { VERIFY_TIMEOUT_ENV, verifyTimeoutMs, type RunnerDeps } from './deps.ts';
import { settleAgent } from './agent.ts';
import type { RepetitionState } from './state.ts';

function verifyOptions(rep: RepetitionState, ctx: RepetitionContext, deps: RunnerDeps): SandboxRunOptions {
  return {
    ...rep.sandbox!,
    command: ctx.payload.experiment.verify,
    timeoutMs: verifyTimeoutMs(deps.env),
    signal: rep.stopAgent.signal,
    name: containerName(ctx.jobId, 'verify'),
    onStdout: (chunk) => void rep.outputs.verify.write(chunk),
    onStderr: (chunk) => void rep.outputs.verify.write(chunk),
  };
}

/** Start verify's container now, to be released after the agent; one that cannot start is started again then, and fails there. */
export function holdVerify(rep: RepetitionState, ctx: RepetitionContext, deps: RunnerDeps): void {
  rep.heldVerify = deps.sandbox.hold(verifyOptions(rep, ctx, deps)).catch(() => null);
}

/** A held verify that will not run is removed (the clean-up would find it by its labels too, later). */
export async function discardHeldVerify(rep: RepetitionState): Promise<void> {
  const held = await rep.heldVerify;
  rep.heldVerify = null;
  await held?.discard();
}

export async function runVerify(rep: RepetitionState, ctx: RepetitionContext, deps: RunnerDeps): Promise<void> {
  const ending = rep.agentEnding;
  if (ending === null) return verifyAfterAgent(rep, ctx, deps);
  // The agent's command is over and its container on its way out: verify is released beside that,
  // and the agent's result is settled (and said) while it runs.
  rep.agentEnding = null;
  const verifying = verifyAfterAgent(rep, ctx, deps);
  try {
    await settleAgent(rep, ctx, await ending);
  } catch (error) {
    rep.stopAgent.abort();
    await verifying.catch(() => undefined);
    throw error;
  }
  // The sandbox failed the agent after all: what verify would say no longer counts.
  if (rep.error) rep.stopAgent.abort();
  await verifying;
}

async function verifyAfterAgent(rep: RepetitionState, ctx: RepetitionContext, deps: RunnerDeps): Promise<void> {
  if (rep.trigger || rep.error) return discardHeldVerify(rep);
  const timeout = verifyTimeoutMs(deps.env);
  await ctx.setProgress({ phase: 'verify', run_id: rep.runId, canary: rep.canary, artifacts_dir: rep.artifacts.dir });
  const held = await rep.heldVerify;
  rep.heldVerify = null;
  // An agent killed by a signal nobody here sent (137, 143) may have been stopped by an engine that is
  // going away: it stops every container, the held one too, while it still answers. A fresh start is
  // what it refuses, and its refusal says what happened. (An agent settled beside verify was not.)
  const signalled = rep.agent !== null && !rep.agent.aborted && exitedBySignal(rep.agent.exitCode);
  if (held && signalled) await held.discard();
  const verify = held && !signalled ? await held.run() : await deps.sandbox.run(verifyOptions(rep, ctx, deps));
  rep.verify = verify;
  await ctx.log(`verify exited ${verify.exitCode}${verify.timedOut ? ` (timed out after ${timeout / 1000} s)` : ''}`);
  if (rep.proxyDeath) rep.error ??= rep.proxyDeath;
  else if (verify.error) rep.error ??= `the sandbox failed during verify: ${verify.error}`;
  else if (verify.timedOut) rep.error ??= `verify did not finish within ${timeout / 1000} s (${VERIFY_TIMEOUT_ENV} on the worker sets the limit)`;
}
