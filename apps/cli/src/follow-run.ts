// Following a run from a terminal, the one way `chaos run` and `chaos status --follow` both do it: the
// live progress (phases, repetitions, the agent's output) from the moment of attaching, then the
// summary, and the exit code the report gives. Any number of followers may watch one run; none of
// them runs or changes it, so stopping one never touches the run.
import { EXIT, IntuticError } from '@intutic/errors';
import { failedClosing, getRun, recordedProgress, scoringJobId, waitForRun, type ProgressMessage, type RunPayload, type RunQueue } from '@intutic/queue';
import { renderSummary, reportSchema, type Report } from '@intutic/report';
import type { CliContext } from './context.ts';
import { progressView, type ProgressView } from './progress-view.ts';

/** How following ended: the follower let go first, or the run ended with this exit code. */
export type FollowEnd = { state: 'detached' } | { state: 'ended'; code: number; report: Report | null };

/** The lines that open a run's progress: what it runs, where, and where its report goes. */
export function runHeader(payload: RunPayload): string[] {
  const { experiment } = payload;
  return [
    `run ${payload.run_id}: ${experiment.name}, ${experiment.repeat} baseline then ${experiment.repeat} faulted repetitions (${experiment.repeat * 2}), commit ${payload.commit.slice(0, 12)}, image ${payload.sandbox_image}`,
    `report: ${payload.report_path}`,
  ];
}

/** How often a follower looks at the run's jobs for a worker that died. */
export const WATCH_EVERY_MS = 2_000;

/** What a follower says once when the worker holding a repetition is gone. */
export const deadWorkerNotice = (jobId: string) =>
  `! ${jobId}: the worker running it is gone (killed, crashed, or cut off from Redis). This repetition cannot finish: the next worker to start fails it as stalled, removes what it left, and the run goes on. Start one: intutic chaos worker (under compose: docker compose up -d worker)\n`;

/**
 * Show the run's progress messages from now on (agent output terminal-safe); call the returned
 * function to stop. `catchUp`: a follower joining a run already under way first sees the header and
 * every repetition line the jobs recorded so far, then the live messages, none of them twice. Every
 * few seconds it also looks for a repetition whose worker died: it says so, and shows that
 * repetition's closing line once a later worker has failed it (no live message ever does).
 */
export async function showProgress(queue: RunQueue, runId: string, ctx: CliContext, options: { catchUp?: boolean } = {}): Promise<ShownProgress> {
  const closed = new Set<string>();
  const shown = progressView(ctx);
  const view: ProgressView = {
    show(message) {
      if (message.type === 'repetition_finished') closed.add(message.job_id);
      shown.show(message);
    },
    end: () => shown.end(),
  };
  // Held while the record is read: a message both recorded and published then shows once.
  let held: ProgressMessage[] | null = options.catchUp ? [] : null;
  const unsubscribe = await queue.subscribe(runId, (message) => (held ? held.push(message) : view.show(message)));
  if (held) {
    const { payload, messages } = await recordedProgress(queue, runId);
    for (const line of runHeader(payload)) ctx.stderr.write(`${line}\n`);
    const shown = new Map<string, number>();
    for (const message of messages) {
      view.show(message);
      const key = keyOf(message);
      if (key) shown.set(key, (shown.get(key) ?? 0) + 1);
    }
    const live = held;
    held = null;
    for (const message of live) {
      const key = keyOf(message);
      const times = key ? (shown.get(key) ?? 0) : 0;
      if (times > 0) shown.set(key!, times - 1);
      else view.show(message);
    }
  }
  const watch = watchWorkers(queue, runId, ctx, view, closed);
  const stop = async () => {
    watch.stop();
    await unsubscribe();
    view.end();
  };
  return Object.assign(stop, { settle: watch.settle });
}

/** Stops showing the progress; `settle` first shows what the run's end leaves to say (a stalled repetition's closing line). */
export type ShownProgress = (() => Promise<void>) & { settle: () => Promise<void> };

function watchWorkers(
  queue: RunQueue,
  runId: string,
  ctx: CliContext,
  view: ProgressView,
  closed: Set<string>,
): { stop: () => void; settle: () => Promise<void> } {
  const told = new Set<string>();
  let stopped = false;
  const look = async () => {
    const run = await getRun(queue, runId);
    const online = await queue.workersOnline();
    if (stopped) return;
    for (const job of run.jobs) {
      if (job.kind !== 'baseline' && job.kind !== 'faulted') continue;
      // No worker online at all says it before the dead worker's lock runs out.
      const gone = job.orphaned || (job.state === 'active' && online === 0);
      if (gone && !told.has(job.id)) {
        told.add(job.id);
        ctx.stderr.write(deadWorkerNotice(job.id));
      }
      if (job.stalled && !closed.has(job.id)) view.show(failedClosing(job, job.kind));
    }
  };
  let looking: Promise<void> | null = null;
  const timer = setInterval(() => {
    // A look that fails (Redis away for a moment) is the next look's to make.
    looking ??= look()
      .catch(() => undefined)
      .finally(() => (looking = null));
  }, WATCH_EVERY_MS);
  timer.unref();
  return {
    stop: () => {
      stopped = true;
      clearInterval(timer);
    },
    // The run ended: one last look, after the one under way, so that a repetition failed as stalled
    // just before the end is closed before the summary (the periodic look may not have come yet).
    settle: async () => {
      await looking;
      await look().catch(() => undefined);
    },
  };
}

/**
 * Wait until the run ends (or `stop` fires) and print its summary. The code is the report's
 * (0 scored, 1 aborted, 2 invalid); a run that could not be scored counts as aborted.
 */
export async function awaitRunEnd(queue: RunQueue, runId: string, ctx: CliContext, stop: AbortSignal, settle?: () => Promise<void>): Promise<FollowEnd> {
  const end = await waitForRun(queue, runId, { signal: stop });
  if (end.state === 'detached') return end;
  await settle?.();
  if (end.state === 'missing') throw new IntuticError('E_RUN_NOT_FOUND', `run ${runId} disappeared from the queue`);
  if (end.state === 'failed') {
    ctx.stderr.write(`error: the run could not be scored: ${end.reason}\n`);
    return { state: 'ended', code: EXIT.aborted, report: null };
  }
  const report = reportSchema.parse(end.result.report);
  ctx.stdout.write('\n' + renderSummary(report, { color: ctx.isTTY && !ctx.env.NO_COLOR }));
  return { state: 'ended', code: report.exit_code, report };
}

/** The command that attaches to a run again, for the messages that tell a user how to. */
export const followCommand = (runId: string) => `intutic chaos status ${runId} --follow`;

/**
 * `chaos status <run> --follow`: follow a run someone else started until it ends. Ctrl-C only stops
 * following (exit 130); the run goes on.
 */
export async function followExistingRun(queue: RunQueue, runId: string, ctx: CliContext): Promise<number> {
  const stop = new AbortController();
  const onInterrupt = () => {
    ctx.stderr.write(`\nstopped following run ${runId}: the run goes on. Follow it again with: ${followCommand(runId)}\n`);
    stop.abort();
  };
  ctx.stderr.write(`following run ${runId} (Ctrl-C stops following; the run goes on)\n`);
  const unsubscribe = await showProgress(queue, runId, ctx, { catchUp: true });
  try {
    if (ctx.signal.aborted) onInterrupt();
    else ctx.signal.addEventListener('abort', onInterrupt, { once: true });
    if ((await runIsPending(queue, runId)) && (await queue.workersOnline()) === 0) {
      ctx.stderr.write('no worker is online: the run waits until one starts (`intutic chaos worker`)\n');
    }
    const end = await awaitRunEnd(queue, runId, ctx, stop.signal, unsubscribe.settle);
    return end.state === 'detached' ? EXIT.interrupted : end.code;
  } finally {
    ctx.signal.removeEventListener('abort', onInterrupt);
    await unsubscribe();
  }
}

/** Not yet ended: its scoring job (the flow's root) is neither completed nor failed. */
async function runIsPending(queue: RunQueue, runId: string): Promise<boolean> {
  const state = await (await queue.getJob(scoringJobId(runId)))?.getState();
  return state !== undefined && state !== 'completed' && state !== 'failed';
}

/** What identifies a recorded message among the live ones; agent output is never recorded. */
function keyOf(message: ProgressMessage): string | null {
  if (message.type === 'agent_output' || message.type === 'run_finished') return null;
  return message.type === 'log' ? `log\n${message.job_id}\n${message.line}` : `${message.type}\n${message.job_id}`;
}
