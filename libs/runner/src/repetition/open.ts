// The start of a repetition, before anything is created for it: a canary, the artifacts directory
// next to the report, the job state (the intent log) with any leftover of this very job removed
// first, and the bounded output files. A failure here leaves nothing to clean up.
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { diskFullMessage, IntuticError, isDiskFull } from '@intutic/errors';
import { generateCanary } from '@intutic/faults';
import type { RepetitionContext } from '@intutic/queue';
import { CanaryScanner } from '../canary-scan.ts';
import { cleanupJob } from '../cleanup.ts';
import { CappedOutput } from '../output-cap.ts';
import { artifactPaths, JOB_LABEL, jobPaths, QUEUE_LABEL, queueLabel, RUN_LABEL } from '../paths.ts';
import { newJobState, writeJobState } from '../state.ts';
import type { RunnerDeps } from './deps.ts';
import { writeFailed, type RepetitionState } from './state.ts';

export async function openRepetition(ctx: RepetitionContext, deps: RunnerDeps): Promise<RepetitionState> {
  const { payload, data, jobId } = ctx;
  const startedAt = deps.clock.now();
  const runId = jobId;
  const canary = generateCanary();
  const artifacts = artifactPaths(payload.report_path, data.kind, data.index);
  const paths = jobPaths(deps.home, jobId);
  const labels = { [JOB_LABEL]: jobId, [RUN_LABEL]: payload.run_id, [QUEUE_LABEL]: queueLabel(deps.queue) };
  await mkdir(artifacts.dir, { recursive: true }).catch((error: unknown) => {
    throw isDiskFull(error)
      ? new IntuticError('E_DISK_FULL', diskFullMessage(dirname(artifacts.dir), `the artifacts directory ${artifacts.dir}`, error))
      : error;
  });
  await ctx.setProgress({ phase: 'starting', run_id: runId, canary, artifacts_dir: artifacts.dir });
  await ctx.log(`${data.kind} repetition ${data.index}/${data.repeat}: run id ${runId}, artifacts in ${artifacts.dir}`);

  const job = newJobState({
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
  await writeJobState(paths.state, job);

  // Each output file reports a failed write through the state it belongs to (only ever later, once it exists).
  const failed = (what: string) => (failure: unknown) => writeFailed(rep, what)(failure);
  const rep: RepetitionState = {
    runId,
    canary,
    faulted: data.kind === 'faulted',
    startedAt,
    artifacts,
    paths,
    labels,
    job,
    stopAgent: new AbortController(),
    outputs: {
      stdout: new CappedOutput(artifacts.agent_output, { onError: failed("the agent's stdout (agent.stdout.txt)") }),
      stderr: new CappedOutput(artifacts.agent_stderr, { onError: failed("the agent's stderr (agent.stderr.txt)") }),
      verify: new CappedOutput(artifacts.verify_output, { onError: failed('the verify output (verify.txt)') }),
    },
    scanner: new CanaryScanner(canary),
    warnings: [],
    carriedIn: [],
    workspace: null,
    standIns: {},
    proxy: null,
    sandbox: null,
    mirror: null,
    mirrorTimer: undefined,
    agent: null,
    agentEnding: null,
    heldVerify: null,
    verify: null,
    trigger: null,
    error: null,
    writeError: null,
    proxyDeath: null,
    timings: [],
  };
  return rep;
}
