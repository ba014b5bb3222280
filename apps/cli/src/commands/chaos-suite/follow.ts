// Following a queued suite: one line per cell as it ends (the matrix filling in), then the suite
// report the suite job assembled. Polls the queue (a cell's end is its scoring job's end), so it
// needs no subscription and sees cells other workers ran. Ctrl-C cancels every cell still to come
// (the running repetition is stopped, the rest skip) and waits for the suite job to say so.
import type { Job } from 'bullmq';
import { EXIT, IntuticError } from '@intutic/errors';
import { runResultSchema, scoringJobId, suiteJobId, type RunQueue, type SuitePayload } from '@intutic/queue';
import { reportSchema, suiteReportSchema, type SuiteReport } from '@intutic/report';

const POLL_MS = 1000;

type Say = (line: string) => void;

async function stateOf(job: Job | undefined): Promise<string | undefined> {
  return job ? job.getState() : undefined;
}

/** The line a cell's end is shown as: `[2/6] registry-down × codex: scored, score 83.3`. */
function cellLine(n: number, total: number, cell: SuitePayload['cells'][number], job: Job, state: string): string {
  const head = `[${n}/${total}] ${cell.experiment} × ${cell.profile}`;
  if (state === 'failed') return `${head}: error: ${job.failedReason ?? 'its scoring job failed'}`;
  const result = runResultSchema.safeParse(job.returnvalue);
  const report = result.success ? reportSchema.safeParse(result.data.report) : undefined;
  if (!report?.success) return `${head}: ended without a readable report`;
  const r = report.data;
  const cost = r.repetitions.reduce((sum, x) => sum + (x.cost_usd ?? 0), 0);
  return `${head}: ${r.verdict}${r.score === null ? '' : `, score ${Math.round(r.score * 10) / 10}`}, ${cost.toFixed(2)} USD (${r.report_path})`;
}

export interface FollowSuiteOptions {
  /** What Ctrl-C does: cancel every cell still to come (`chaos suite`), or let go of the suite (`chaos status --follow`), which resolves to null. */
  onInterrupt: 'cancel' | 'let-go';
}

/** Follows the suite to its end and returns its report; Ctrl-C cancels what is left of it, or lets go of it. */
export async function followSuite(
  queue: RunQueue,
  suite: SuitePayload,
  signal: AbortSignal,
  say: Say,
  options: FollowSuiteOptions = { onInterrupt: 'cancel' },
): Promise<{ report: SuiteReport; cancelled: boolean } | null> {
  const shown = new Set<string>();
  let cancelled = false;
  const cancel = async () => {
    if (cancelled) return;
    cancelled = true;
    say(`cancelling suite ${suite.suite_id}: the running repetitions are stopped and every cell still to come skipped…`);
    for (const cell of suite.cells) await queue.cancel(cell.run_id, 'the suite was cancelled by the user');
  };
  for (;;) {
    if (signal.aborted && options.onInterrupt === 'let-go') return null;
    if (signal.aborted) await cancel();
    for (const cell of suite.cells) {
      if (shown.has(cell.run_id)) continue;
      const job = await queue.getJob(scoringJobId(cell.run_id));
      const state = await stateOf(job);
      if (job && (state === 'completed' || state === 'failed')) {
        shown.add(cell.run_id);
        say(cellLine(shown.size, suite.cells.length, cell, job, state));
      }
    }
    const suiteJob = await queue.getJob(suiteJobId(suite.suite_id));
    const state = await stateOf(suiteJob);
    if (state === undefined) throw new IntuticError('E_RUN_NOT_FOUND', `suite ${suite.suite_id} disappeared from the queue`);
    if (state === 'completed') return { report: suiteReportSchema.parse(suiteJob!.returnvalue), cancelled };
    if (state === 'failed')
      throw new IntuticError('E_REPORT_INVALID', `the suite report could not be assembled: ${suiteJob!.failedReason ?? 'unknown reason'}`);
    await new Promise((done) => setTimeout(done, POLL_MS));
  }
}

/** 0 when every cell scored; else the worst cell's code (1 aborted, 2 invalid), a cell in error or skipped counting as aborted. */
export function suiteExitCode(report: SuiteReport): number {
  return report.cells.reduce<number>((worst, cell) => Math.max(worst, cell.status === 'done' && cell.report ? cell.report.exit_code : EXIT.aborted), EXIT.ok);
}
