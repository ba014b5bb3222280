// Phase 4, verify: the experiment's verify in a fresh container on the agent's workspace, under its
// own time budget, unless the agent was stopped (abort, cancel) or the runner already failed.
import type { RepetitionContext } from '@intutic/queue';
import { containerName } from '../paths.ts';
import { VERIFY_TIMEOUT_ENV, verifyTimeoutMs, type RunnerDeps } from './deps.ts';
import type { RepetitionState } from './state.ts';

export async function runVerify(rep: RepetitionState, ctx: RepetitionContext, deps: RunnerDeps): Promise<void> {
  if (rep.trigger || rep.error) return;
  const timeout = verifyTimeoutMs(deps.env);
  await ctx.setProgress({ phase: 'verify', run_id: rep.runId, canary: rep.canary, artifacts_dir: rep.artifacts.dir });
  const verify = await deps.sandbox.run({
    ...rep.sandbox!,
    command: ctx.payload.experiment.verify,
    timeoutMs: timeout,
    signal: rep.stopAgent.signal,
    name: containerName(ctx.jobId, 'verify'),
    onStdout: (chunk) => void rep.outputs.verify.write(chunk),
    onStderr: (chunk) => void rep.outputs.verify.write(chunk),
  });
  rep.verify = verify;
  await ctx.log(`verify exited ${verify.exitCode}${verify.timedOut ? ` (timed out after ${timeout / 1000} s)` : ''}`);
  if (rep.proxyDeath) rep.error = rep.proxyDeath;
  else if (verify.error) rep.error = `the sandbox failed during verify: ${verify.error}`;
  else if (verify.timedOut) rep.error = `verify did not finish within ${timeout / 1000} s (${VERIFY_TIMEOUT_ENV} on the worker sets the limit)`;
}
