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
import { chmod, copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { compilePlan } from '@intutic/experiment';
import { generateCanary, sealPlanForFile } from '@intutic/faults';
import { describeError, IntuticError } from '@intutic/errors';
import type { RepetitionContext, RepetitionOutcome } from '@intutic/queue';
import { diskFullMessage, isDiskFull } from '@intutic/report';
import { runInSandbox, type Engine, type SandboxRunResult } from '@intutic/sandbox';
import { applyCarryIn, carryInHiddenPaths, createWorkspace, formatCarryIn, hideFromGit, resolveCommitSource, type CarryInEntry } from '@intutic/workspace';
import { AbortMonitor, POLL_MS, type MonitorTrigger } from './abort-monitor.ts';
import { CanaryScanner } from './canary-scan.ts';
import { cleanupJob } from './cleanup.ts';
import { EventsMirror } from './events-mirror.ts';
import { CappedOutput } from './output-cap.ts';
import { artifactPaths, CHAOS_DIR_IN_WORKTREE, containerName, JOB_LABEL, jobPaths, QUEUE_LABEL, queueLabel, RUN_LABEL } from './paths.ts';
import { startProxy, type RunningProxy } from './proxy.ts';
import { buildSandboxEnv, makeStandIns } from './sandbox-env.ts';
import { newJobState, writeJobState, type JobState } from './state.ts';

/** verify gets a fixed budget (it is the project's own check, not the agent); a worker may set another. */
export const VERIFY_TIMEOUT_MS = 15 * 60_000;
export const VERIFY_TIMEOUT_ENV = 'INTUTIC_CHAOS_VERIFY_TIMEOUT_S';

export function verifyTimeoutMs(env: NodeJS.ProcessEnv): number {
  const seconds = Number(env[VERIFY_TIMEOUT_ENV]);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : VERIFY_TIMEOUT_MS;
}

export interface RunnerDeps {
  engine: Engine;
  /** The address containers reach the host at; the proxy listens there. */
  gateway: string;
  /** ~/.intutic (or INTUTIC_HOME) on the worker's machine. */
  home: string;
  /** argv prefix that runs the intutic CLI (the proxy is `<that> start …`). */
  intuticCommand: readonly string[];
  proxyExtraArgs?: readonly string[];
  /** The worker's environment: provider key values are read from it by name. */
  env: NodeJS.ProcessEnv;
  queue: { redis: string; prefix: string };
}

export async function runRepetition(ctx: RepetitionContext, deps: RunnerDeps): Promise<RepetitionOutcome> {
  const { payload, data, jobId } = ctx;
  const startedAt = Date.now();
  const runId = jobId;
  const canary = generateCanary();
  const faulted = data.kind === 'faulted';
  const artifacts = artifactPaths(payload.report_path, data.kind, data.index);
  const paths = jobPaths(deps.home, jobId);
  const labels = { [JOB_LABEL]: jobId, [RUN_LABEL]: payload.run_id, [QUEUE_LABEL]: queueLabel(deps.queue) };
  await mkdir(artifacts.dir, { recursive: true }).catch((error: unknown) => {
    throw isDiskFull(error) ? new IntuticError('E_DISK_FULL', diskFullMessage(dirname(artifacts.dir), `the artifacts directory ${artifacts.dir}`, error)) : error;
  });
  await ctx.setProgress({ phase: 'starting', run_id: runId, canary, artifacts_dir: artifacts.dir });
  await ctx.log(`${data.kind} repetition ${data.index}/${data.repeat}: run id ${runId}, artifacts in ${artifacts.dir}`);

  const state: JobState = newJobState({
    job_id: jobId,
    run_id: payload.run_id,
    queue: deps.queue,
    worktree: paths.worktree,
    artifacts_dir: artifacts.dir,
    events_artifact: artifacts.events,
    keep: payload.keep,
    container_labels: labels,
  });
  // A leftover of this very job (a worker that died on it) goes first.
  await cleanupJob(paths.dir, null, deps);
  await writeJobState(paths.state, state);

  const warnings: string[] = [];
  let carriedIn: CarryInEntry[] = [];
  let proxy: RunningProxy | null = null;
  let agent: SandboxRunResult | null = null;
  let verify: SandboxRunResult | null = null;
  let trigger: MonitorTrigger | null = null;
  let error: string | null = null;
  // The first artifact write that failed, in words; it stops the agent (what it does is not kept).
  let writeError: string | null = null;
  // The proxy's exit status and last words, when it died before the repetition was done with it.
  let proxyDeath: string | null = null;
  const stopAgent = new AbortController();
  const writeFailed = (what: string) => (failure: unknown) => {
    writeError ??= isDiskFull(failure)
      ? diskFullMessage(artifacts.dir, what, failure)
      : `could not write ${what} in ${artifacts.dir}: ${(failure as Error).message}`;
    stopAgent.abort();
  };
  const stdoutFile = new CappedOutput(artifacts.agent_output, { onError: writeFailed("the agent's stdout (agent.stdout.txt)") });
  const stderrFile = new CappedOutput(artifacts.agent_stderr, { onError: writeFailed("the agent's stderr (agent.stderr.txt)") });
  const verifyFile = new CappedOutput(artifacts.verify_output, { onError: writeFailed('the verify output (verify.txt)') });
  const verifyTimeout = verifyTimeoutMs(deps.env);
  // From the agent's start to the end, a copy of the events outside the sandbox (tampering shows).
  let mirror: EventsMirror | null = null;
  let mirrorTimer: NodeJS.Timeout | undefined;
  const scanner = new CanaryScanner(canary);
  try {
    await ctx.setProgress({ phase: 'worktree', run_id: runId, canary, artifacts_dir: artifacts.dir });
    const source = await resolveCommitSource({ repoPath: payload.repo.path, remote: payload.repo.remote, commit: payload.commit, cacheDir: join(deps.home, 'chaos', 'repos') });
    state.repo_source = source;
    await writeJobState(paths.state, state);
    await createWorkspace(source, payload.commit, paths.worktree);
    await ctx.log(`workspace of ${payload.commit.slice(0, 12)} at ${paths.worktree} (a repository of its own, HEAD detached)`);
    const applied = await applyCarryIn(paths.worktree, payload.carry_in, { governanceDir: paths.governance });
    carriedIn = applied.entries;
    // One line per repetition (chaos run listed them one by one when the run started).
    const placeholders = applied.protection.placeholders.map((file) => `${file}: an empty placeholder, read-only, so that no settings file can be added to turn the hooks off`);
    const carried = [...formatCarryIn(carriedIn), ...placeholders];
    if (carried.length > 0) await ctx.log(`carry-in (${carried.length}): ${carried.join('; ')}`);
    await mkdir(paths.chaosDir, { recursive: true });
    // The gates in the sandbox append to the events file next to the host's proxy.
    await chmod(paths.chaosDir, 0o777);
    await writeFile(paths.events, '', { mode: 0o666 });
    await chmod(paths.events, 0o666);
    // git status is clean at the start, as in the user's checkout: what the runner put there is not the agent's.
    await hideFromGit(paths.worktree, carryInHiddenPaths(applied, [CHAOS_DIR_IN_WORKTREE]));
    // The sandbox can read the plan (read-only, in the governance mount): its canary is sealed, so the literal reaches the agent only in an injected error.
    if (faulted) await writeFile(paths.plan, JSON.stringify(sealPlanForFile(compilePlan(payload.experiment, runId, canary)), null, 2) + '\n', { mode: 0o644 });

    await ctx.setProgress({ phase: 'proxy', run_id: runId, canary, artifacts_dir: artifacts.dir });
    // Provider keys stay on the host: the sandbox gets stand-ins, the proxy swaps in the real keys.
    const standIns = makeStandIns(payload.env_names, deps.env);
    proxy = await startProxy({
      command: deps.intuticCommand,
      host: deps.gateway,
      eventsPath: paths.events,
      ...(faulted ? { planPath: paths.plan } : {}),
      logPath: artifacts.proxy_log,
      caOutPath: paths.caCert,
      outputPath: join(artifacts.dir, 'proxy.stdout.txt'),
      extraArgs: deps.proxyExtraArgs ?? [],
      env: deps.env,
      standIns,
      onSpawn: async (pid) => {
        state.proxy = { pid };
        await writeJobState(paths.state, state);
      },
      onOutputError: writeFailed("the proxy's output (proxy.stdout.txt)"),
    });
    await ctx.log(`proxy ${proxy.url} (pid ${proxy.pid})${faulted ? ' with the plan' : ' with no plan (baseline)'}`);
    // Without its proxy the agent only fails its calls: stop the sandbox the way an abort does.
    void proxy.died.then((death) => {
      proxyDeath = describeError(death).text.replace(/^error\[[A-Z_]+\]: /, '');
      void ctx.log(`runner error, stopping the sandbox: ${proxyDeath}`).catch(() => undefined);
      stopAgent.abort();
    });

    const env = buildSandboxEnv({ proxyUrl: proxy.url, proxyHost: proxy.host, faulted, policyEnv: applied.env, passNames: payload.env_names, workerEnv: deps.env, standIns, canary });
    if (env.missing.length > 0) warnings.push(`not set in the worker's environment, so not passed to the sandbox: ${env.missing.join(', ')}`);
    const sandbox = {
      image: payload.sandbox_image,
      workspace: paths.worktree,
      // Governance out of the agent's reach: gates, hook settings, policy and plan read-only; the events directory pinned.
      protection: { governanceDir: paths.governance, readOnly: applied.protection.readOnly, pinned: [...applied.protection.pinned, CHAOS_DIR_IN_WORKTREE] },
      envNames: env.names,
      env: env.values,
      proxy: { host: proxy.host, port: proxy.port },
      ...(proxy.caCertPath ? { caCertPath: proxy.caCertPath } : {}),
      labels,
    };

    await ctx.setProgress({ phase: 'agent', run_id: runId, canary, artifacts_dir: artifacts.dir });
    if (writeError) throw new IntuticError('E_DISK_FULL', writeError);
    await ctx.log(`agent: sh -c ${JSON.stringify(payload.experiment.agent)}`);
    const monitor = new AbortMonitor({
      eventsPath: paths.events,
      settings: payload.experiment.abort,
      runId,
      agentStartedAt: Date.now(),
      cancelReason: ctx.cancelReason,
      onTrigger: () => stopAgent.abort(),
    });
    mirror = new EventsMirror(paths.events, join(paths.dir, 'events.mirror.jsonl'));
    await mirror.start();
    mirrorTimer = setInterval(() => void mirror?.poll(), POLL_MS);
    monitor.start();
    try {
      agent = await runInSandbox(deps.engine, {
        ...sandbox,
        command: payload.experiment.agent,
        signal: stopAgent.signal,
        name: containerName(jobId, 'agent'),
        // Past the cap nothing more is kept or shown live; the canary scan still reads every byte.
        onStdout: (chunk) => {
          scanner.push(chunk);
          const kept = stdoutFile.write(chunk);
          if (kept.length > 0) void ctx.publish({ type: 'agent_output', job_id: jobId, stream: 'stdout', text: kept.toString('utf8') });
        },
        onStderr: (chunk) => {
          const kept = stderrFile.write(chunk);
          if (kept.length > 0) void ctx.publish({ type: 'agent_output', job_id: jobId, stream: 'stderr', text: kept.toString('utf8') });
        },
      });
    } finally {
      trigger = await monitor.stop();
    }
    const why = trigger
      ? ` (stopped: ${trigger.kind === 'abort' ? trigger.abort.condition : 'cancelled'})`
      : proxyDeath ? ' (stopped: its proxy died)'
      : writeError ? ` (${agent.aborted ? 'stopped: ' : ''}its output could not be written)` : '';
    await ctx.log(`agent exited ${agent.exitCode} after ${(agent.durationMs / 1000).toFixed(1)} s${why}`);
    if (proxyDeath && !trigger) error = proxyDeath;
    else if (writeError && !trigger) error = writeError;
    else if (agent.error && !trigger) error = `the sandbox failed: ${agent.error}`;

    if (!trigger && !error) {
      await ctx.setProgress({ phase: 'verify', run_id: runId, canary, artifacts_dir: artifacts.dir });
      verify = await runInSandbox(deps.engine, {
        ...sandbox,
        command: payload.experiment.verify,
        timeoutMs: verifyTimeout,
        signal: stopAgent.signal,
        name: containerName(jobId, 'verify'),
        onStdout: (chunk) => void verifyFile.write(chunk),
        onStderr: (chunk) => void verifyFile.write(chunk),
      });
      await ctx.log(`verify exited ${verify.exitCode}${verify.timedOut ? ` (timed out after ${verifyTimeout / 1000} s)` : ''}`);
      if (proxyDeath) error = proxyDeath;
      else if (verify.error) error = `the sandbox failed during verify: ${verify.error}`;
      else if (verify.timedOut) error = `verify did not finish within ${verifyTimeout / 1000} s (${VERIFY_TIMEOUT_ENV} on the worker sets the limit)`;
    }
  } catch (caught) {
    // The job's own files (worktree, plan, state) are under the job directory on the worker's disk.
    const where = (caught as NodeJS.ErrnoException).path;
    error = isDiskFull(caught)
      ? diskFullMessage(where ? dirname(where) : paths.dir, where ? basename(where) : "the repetition's files", caught)
      : describeError(caught).text.replace(/^error\[[A-Z_]+\]: /, '');
    await ctx.log(`runner error: ${error}`).catch(() => undefined);
  } finally {
    await ctx.setProgress({ phase: 'artifacts', run_id: runId, canary, artifacts_dir: artifacts.dir }).catch(() => undefined);
    await proxy?.stop();
    await Promise.all([stdoutFile.end('agent stdout'), stderrFile.end('agent stderr'), verifyFile.end('verify output')]);
    for (const [name, file] of [['agent stdout', stdoutFile], ['agent stderr', stderrFile], ['verify output', verifyFile]] as const) {
      if (file.truncated) warnings.push(file.note(name));
    }
    clearInterval(mirrorTimer);
    // A half-copied events file would score as if the agent had done less: none is kept instead.
    const eventsNotKept = async (failure: unknown) => {
      writeFailed('the events (events.jsonl)')(failure);
      await rm(artifacts.events, { force: true });
    };
    const kept = mirror
      ? await mirror.finish(artifacts.events, runId).catch(async (failure: unknown) => {
          if (isDiskFull(failure)) await eventsNotKept(failure);
          return null;
        })
      : null;
    if (!kept) {
      await copyFile(paths.events, artifacts.events)
        .catch((failure: NodeJS.ErrnoException) => (failure.code === 'ENOENT' ? writeFile(artifacts.events, '') : Promise.reject(failure)))
        .catch(eventsNotKept);
    }
    if (writeError && !error && trigger?.kind !== 'cancel') error = writeError;
    if (kept && (kept.tampering.length > 0 || kept.forged > 0)) {
      // A record the agent could rewrite cannot score it: the repetition is an error, never a pass.
      const what = [...kept.tampering, ...(kept.forged > 0 ? [`${kept.forged} line(s) carried another run's id (forged; left out)`] : [])].join('; ');
      warnings.push(`tampering with /work/.intutic-chaos/events.jsonl: ${what}; the kept events are what the runner's mirror saw plus later lines`);
      if (!error && trigger?.kind !== 'cancel') error = `the events file was tampered with from inside the sandbox (${what}): this repetition is not scored`;
    }
    if (faulted) await copyFile(paths.plan, join(artifacts.dir, 'plan.json')).catch(() => undefined);
    await cleanupJob(paths.dir, state, deps, { keepWorktree: payload.keep });
    if (payload.keep) await ctx.log(`--keep: the workspace stays at ${paths.worktree} (its .git was the agent's to change: mind what its config runs; remove it with: rm -rf ${paths.worktree})`);
  }

  const cancelled = trigger?.kind === 'cancel';
  return {
    index: data.index,
    kind: data.kind,
    run_id: runId,
    canary,
    // An aborted agent's exit code is the signal that stopped it; it is kept for the record.
    agent_exit_code: agent ? agent.exitCode : null,
    verify_exit_code: verify && !verify.error ? verify.exitCode : null,
    duration_s: (Date.now() - startedAt) / 1000,
    stdout_contains_canary: scanner.found,
    abort: trigger?.kind === 'abort' ? trigger.abort : null,
    error: trigger?.kind === 'cancel' ? trigger.reason : error,
    cancelled,
    started_at: new Date(startedAt).toISOString(),
    finished_at: new Date().toISOString(),
    artifacts,
    carried_in: carriedIn,
    warnings,
  };
}
