// Phase 3, agent: the experiment's agent in the sandbox under the abort monitor, its events mirrored
// outside the sandbox, its output kept (up to the cap) and shown live, every stdout byte scanned for
// the canary. An abort, a cancel, a dead proxy or an output that cannot be written stops it; which
// one did is said in the log, and the ones that are the runner's become the repetition's error.
// The phase ends when the command is over: once the entrypoint says so (its exit trailer), the
// container is still being torn down by the engine, and runVerify settles its result beside verify.
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { IntuticError } from '@intutic/errors';
import type { RepetitionContext } from '@intutic/queue';
import { exitedBySignal, type SandboxRunResult } from '@intutic/sandbox';
import { AbortMonitor, POLL_MS } from '../abort-monitor.ts';
import { EventsMirror } from '../events-mirror.ts';
import { containerName } from '../paths.ts';
import type { RunnerDeps } from './deps.ts';
import type { RepetitionState } from './state.ts';
import { holdVerify } from './verify.ts';

export async function runAgent(rep: RepetitionState, ctx: RepetitionContext, deps: RunnerDeps): Promise<void> {
  const { payload, jobId } = ctx;
  await ctx.setProgress({ phase: 'agent', run_id: rep.runId, canary: rep.canary, artifacts_dir: rep.artifacts.dir });
  if (rep.writeError) throw new IntuticError('E_DISK_FULL', rep.writeError);
  await ctx.log(`agent: sh -c ${JSON.stringify(payload.experiment.agent)}`);
  const monitor = new AbortMonitor({
    eventsPath: rep.paths.events,
    worktree: rep.paths.worktree,
    settings: payload.experiment.abort,
    runId: rep.runId,
    agentStartedAt: deps.clock.now(),
    cancelReason: ctx.cancelReason,
    onTrigger: () => rep.stopAgent.abort(),
  });
  const mirror = new EventsMirror(rep.paths.events, join(rep.paths.dir, 'events.mirror.jsonl'), rep.paths.worktree);
  rep.mirror = mirror;
  await mirror.start();
  rep.mirrorTimer = setInterval(() => void mirror.poll(), POLL_MS);
  monitor.start();
  // One decoder per stream: a character split across chunks reaches the live view whole.
  const decoded = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
  let commandEnded: (exitCode: number) => void = () => undefined;
  const ended = new Promise<number>((resolve) => (commandEnded = resolve));
  try {
    const run = deps.sandbox.run({
      ...rep.sandbox!,
      command: payload.experiment.agent,
      signal: rep.stopAgent.signal,
      name: containerName(jobId, 'agent'),
      // Verify's container starts while the agent runs (after the agent's own start, not competing with it).
      onStarted: () => holdVerify(rep, ctx, deps),
      onCommandEnded: (exitCode) => commandEnded(exitCode),
      // Said when it is so: the abort reaction is this moment; the engine's tear-down comes after.
      onStopped: () => void ctx.log('agent stopped: every process in its sandbox killed, the workspace given back').catch(() => undefined),
      // Past the cap nothing more is kept or shown live; the canary scan still reads every byte.
      onStdout: (chunk) => {
        rep.scanner.push(chunk);
        const kept = rep.outputs.stdout.write(chunk);
        if (kept.length > 0) void ctx.publish({ type: 'agent_output', job_id: jobId, stream: 'stdout', text: decoded.stdout.write(kept) });
      },
      onStderr: (chunk) => {
        const kept = rep.outputs.stderr.write(chunk);
        if (kept.length > 0) void ctx.publish({ type: 'agent_output', job_id: jobId, stream: 'stderr', text: decoded.stderr.write(kept) });
      },
    });
    const first = await Promise.race([run, ended]);
    if (typeof first === 'number' && mayGoOn(first, rep)) {
      // The command is over and its container on its way out: verify may start beside that (runVerify).
      rep.agentEnding = run;
      run.catch(() => undefined);
    } else {
      rep.agent = await run;
    }
  } finally {
    rep.trigger = await monitor.stop();
  }
  if (rep.agent) await settleAgent(rep, ctx, rep.agent);
}

/**
 * Whether the repetition may go on before the agent's container is gone: not when it is being
 * stopped, nor after a kill by a signal nobody here sent (runVerify asks the engine about those).
 */
function mayGoOn(exitCode: number, rep: RepetitionState): boolean {
  return !rep.stopAgent.signal.aborted && !exitedBySignal(exitCode);
}

/** The agent's result, said in the log, and the repetition's error when the runner or the sandbox failed it. */
export async function settleAgent(rep: RepetitionState, ctx: RepetitionContext, agent: SandboxRunResult): Promise<void> {
  rep.agent = agent;
  const { trigger, proxyDeath, writeError } = rep;
  const why = trigger
    ? ` (stopped: ${trigger.kind === 'abort' ? trigger.abort.condition : 'cancelled'})`
    : proxyDeath
      ? ' (stopped: its proxy died)'
      : writeError
        ? ` (${agent.aborted ? 'stopped: ' : ''}its output could not be written)`
        : '';
  await ctx.log(`agent exited ${agent.exitCode} after ${(agent.durationMs / 1000).toFixed(1)} s${why}`);
  if (proxyDeath && !trigger) rep.error ??= proxyDeath;
  else if (writeError && !trigger) rep.error ??= writeError;
  else if (agent.error && !trigger) rep.error ??= `the sandbox failed: ${agent.error}`;
}
