// A repetition's state as its phases hand it on: what was fixed at the start (ids, paths, the
// output files), what each phase created (workspace, proxy, sandbox spec, results) and the first
// failures. One object instead of a dozen locals: a phase reads what the earlier ones left and the
// clean-up knows exactly what exists.
import { dirname, basename } from 'node:path';
import { describeError, diskFullMessage, isDiskFull } from '@intutic/errors';
import type { ArtifactPaths, RepetitionContext, RepetitionOutcome } from '@intutic/queue';
import type { HeldSandbox, SandboxRunOptions, SandboxRunResult } from '@intutic/sandbox';
import type { AppliedCarryIn, CarryInEntry } from '@intutic/workspace';
import type { MonitorTrigger } from '../abort-monitor.ts';
import type { CanaryScanner } from '../canary-scan.ts';
import type { EventsMirror } from '../events-mirror.ts';
import type { CappedOutput } from '../output-cap.ts';
import type { JobPaths } from '../paths.ts';
import type { RunningProxy } from '../proxy.ts';
import type { JobState } from '../state.ts';

/** What the agent's and verify's containers share: everything but the command and its streams. */
export type SandboxSpec = Omit<SandboxRunOptions, 'command' | 'signal' | 'name' | 'onStdout' | 'onStderr' | 'timeoutMs'>;

export interface RepetitionState {
  readonly runId: string;
  readonly canary: string;
  readonly faulted: boolean;
  readonly startedAt: number;
  readonly artifacts: ArtifactPaths;
  readonly paths: JobPaths;
  readonly labels: Record<string, string>;
  /** The intent log on disk: written before each resource is created. */
  readonly job: JobState;
  /** Stops the agent (and verify): an abort, a cancel, a dead proxy, an artifact that cannot be written. */
  readonly stopAgent: AbortController;
  readonly outputs: { stdout: CappedOutput; stderr: CappedOutput; verify: CappedOutput };
  readonly scanner: CanaryScanner;
  readonly warnings: string[];
  carriedIn: CarryInEntry[];
  workspace: AppliedCarryIn | null;
  /** makeStandIns' result: the provider keys' stand-ins, for the proxy and the sandbox. */
  standIns: Record<string, string>;
  proxy: RunningProxy | null;
  sandbox: SandboxSpec | null;
  /** From the agent's start to the end, a copy of the events outside the sandbox (tampering shows). */
  mirror: EventsMirror | null;
  mirrorTimer: NodeJS.Timeout | undefined;
  agent: SandboxRunResult | null;
  /** The agent's run when its command ended before its container was gone; runVerify settles it. */
  agentEnding: Promise<SandboxRunResult> | null;
  /** Verify's container, started while the agent runs and waiting to be released (null: start one then). */
  heldVerify: Promise<HeldSandbox | null> | null;
  verify: SandboxRunResult | null;
  trigger: MonitorTrigger | null;
  error: string | null;
  /** The first artifact write that failed, in words; it stops the agent (what it does is not kept). */
  writeError: string | null;
  /** The proxy's exit status and last words, when it died before the repetition was done with it. */
  proxyDeath: string | null;
  /** How long each phase took (ms), in the order they ran: the last line of the job's log says it. */
  timings: Array<[phase: string, ms: number]>;
}

/** An IntuticError's text without its code prefix: what a repetition's `error` says. */
export function errorText(error: unknown): string {
  return describeError(error).text.replace(/^error\[[A-Z_]+\]: /, '');
}

/** The handler for an artifact write that failed: the first one is kept, in words, and the agent stopped. */
export function writeFailed(rep: RepetitionState, what: string): (failure: unknown) => void {
  return (failure) => {
    rep.writeError ??= isDiskFull(failure)
      ? diskFullMessage(rep.artifacts.dir, what, failure)
      : `could not write ${what} in ${rep.artifacts.dir}: ${(failure as Error).message}`;
    rep.stopAgent.abort();
  };
}

/** A failure of the runner itself (not the agent's, not verify's): the repetition's error. */
export async function recordRunnerError(rep: RepetitionState, ctx: RepetitionContext, caught: unknown): Promise<void> {
  // The job's own files (worktree, plan, state) are under the job directory on the worker's disk.
  const where = (caught as NodeJS.ErrnoException).path;
  rep.error = isDiskFull(caught)
    ? diskFullMessage(where ? dirname(where) : rep.paths.dir, where ? basename(where) : "the repetition's files", caught)
    : errorText(caught);
  await ctx.log(`runner error: ${rep.error}`).catch(() => undefined);
}

export function outcomeOf(rep: RepetitionState, ctx: RepetitionContext, finishedAt: number): RepetitionOutcome {
  const { trigger, agent, verify } = rep;
  return {
    index: ctx.data.index,
    kind: ctx.data.kind,
    run_id: rep.runId,
    canary: rep.canary,
    // An aborted agent's exit code is the signal that stopped it; it is kept for the record.
    agent_exit_code: agent ? agent.exitCode : null,
    verify_exit_code: verify && !verify.error ? verify.exitCode : null,
    duration_s: (finishedAt - rep.startedAt) / 1000,
    stdout_contains_canary: rep.scanner.found,
    abort: trigger?.kind === 'abort' ? trigger.abort : null,
    error: trigger?.kind === 'cancel' ? trigger.reason : rep.error,
    cancelled: trigger?.kind === 'cancel',
    started_at: new Date(rep.startedAt).toISOString(),
    finished_at: new Date(finishedAt).toISOString(),
    artifacts: rep.artifacts,
    carried_in: rep.carriedIn,
    warnings: rep.warnings,
  };
}
