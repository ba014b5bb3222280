// The queued half of `chaos run`: enqueue the run's flow and, unless --detach, follow it to its end —
// starting a worker in this process when none is online, and on Ctrl-C cancelling the run or leaving
// it in the queue. The progress subscription, that worker and the queue are closed on every way out.
import { EXIT } from '@intutic/errors';
import type { Experiment } from '@intutic/experiment';
import type { RunQueue } from '@intutic/queue';
import type { ChaosWorker } from '@intutic/runner';
import type { Engine } from '@intutic/sandbox';
import { awaitRunEnd, followCommand, runHeader, showProgress } from '../../follow-run.ts';
import type { ChaosRunDeps, ChaosRunOptions, PreparedPayload } from './options.ts';
import { writeRequestedRenderings } from './renderings.ts';

/** A run ready to enqueue: validated, prepared, its image present. */
export interface ReadyRun {
  options: ChaosRunOptions;
  deps: ChaosRunDeps;
  engine: Engine;
  image: string;
  experiment: Experiment;
  payload: PreparedPayload;
  say: (line: string) => void;
}

/** What this process holds open while the run is queued, for the clean-up. */
interface Held {
  unsubscribe: (() => Promise<void>) | null;
  /** The worker this process started for the run because none was online. */
  worker: ChaosWorker | null;
}

export async function enqueueAndFollow(run: ReadyRun): Promise<number> {
  const { options, deps, engine, payload, say } = run;
  const { queue, config } = await deps.connect(engine, say);
  const held: Held = { unsubscribe: null, worker: null };
  try {
    if (!options.detach) held.unsubscribe = await showProgress(queue, payload.run_id, deps.ctx);
    await queue.enqueue(payload);
    announceRun(run);
    const online = await queue.workersOnline();
    if (options.detach) {
      sayDetached(online, payload.run_id, say);
      return EXIT.ok;
    }
    if (online === 0) {
      say('no worker is online: this process runs one for the run');
      held.worker = await deps.startWorker(engine, config, say);
    }
    return await followToEnd(run, queue, held.worker);
  } finally {
    await held.unsubscribe?.();
    await held.worker?.close();
    await queue.close();
  }
}

function announceRun({ payload, say }: ReadyRun): void {
  for (const line of runHeader(payload)) say(line);
}

function sayDetached(online: number, runId: string, say: (line: string) => void): void {
  const followHint = `follow it with: ${followCommand(runId)}`;
  say(
    online > 0
      ? `${online} worker(s) online; ${followHint}`
      : `no worker is online: start one with \`intutic chaos worker\` (or docker compose up) to run it, then ${followHint}`,
  );
}

/** Follows the run until it ends or Ctrl-C leaves it running; then writes the renderings asked for. */
async function followToEnd(run: ReadyRun, queue: RunQueue, worker: ChaosWorker | null): Promise<number> {
  const { ctx } = run.deps;
  const follow = new AbortController();
  const interrupt = cancelOrLeaveOnInterrupt(run, queue, worker, follow);
  const end = await awaitRunEnd(queue, run.payload.run_id, ctx, follow.signal);
  if (end.state === 'detached') return EXIT.ok;
  if (!end.report) return end.code;
  const code = interrupt.cancelled ? EXIT.interrupted : end.code;
  return (await writeRequestedRenderings(end.report, run.options.renderings, ctx)) ? code : Math.max(code, EXIT.couldNotRun);
}

/**
 * On Ctrl-C (already pressed, or to come): ask, or without a terminal cancel. Cancelling stops the
 * running repetition and skips the rest; leaving stops only following (`follow` aborts).
 */
function cancelOrLeaveOnInterrupt(run: ReadyRun, queue: RunQueue, worker: ChaosWorker | null, follow: AbortController): { cancelled: boolean } {
  const { deps, say } = run;
  const runId = run.payload.run_id;
  const interrupt = { cancelled: false };
  const onInterrupt = async () => {
    const choice = deps.interactive ? await deps.ask() : 'cancel';
    if (choice === 'cancel') {
      interrupt.cancelled = true;
      say(`cancelling run ${runId}: the running repetition is stopped and the rest skipped…`);
      await queue.cancel(runId);
    } else {
      say(`left running: run ${runId}. Follow it with: ${followCommand(runId)}`);
      if (worker) say('this process ran the only worker: it finishes the current repetition and exits; start `intutic chaos worker` to go on with the run');
      follow.abort();
    }
  };
  if (deps.ctx.signal.aborted) void onInterrupt();
  else deps.ctx.signal.addEventListener('abort', () => void onInterrupt(), { once: true });
  return interrupt;
}
