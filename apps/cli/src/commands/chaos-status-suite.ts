// `intutic chaos status <suite>`: a suite's cells and where each stands, by the suite id `chaos suite`
// printed; with --follow, the matrix filling in (a line per cell as it ends, the cells that ended
// before first), then the Markdown matrix, exiting with the suite's code. Ctrl-C lets go of the suite;
// it never cancels it (`chaos suite`'s own Ctrl-C does).
import type { Writable } from 'node:stream';
import { EXIT } from '@intutic/errors';
import { openExistingQueue, suiteJobId, suitePayloadSchema, type RunQueue, type SuitePayload } from '@intutic/queue';
import type { CliContext } from '../context.ts';
import { table } from '../shared/run-views.ts';
import { finishSuite } from './chaos-suite/finish.ts';
import { followSuite, suiteExitCode } from './chaos-suite/follow.ts';

/** The suite of this id in the queue, or null when the id names none (it may name a run). */
export async function findSuite(queue: RunQueue, suiteId: string): Promise<SuitePayload | null> {
  const job = await queue.getJob(suiteJobId(suiteId));
  if (!job) return null;
  const payload = suitePayloadSchema.safeParse(job.data);
  return payload.success ? payload.data : null;
}

export interface SuiteStatus {
  /** The suite this argument names, or null. */
  find(arg: string): Promise<SuitePayload | null>;
  /** Follow it to its end; resolves to the exit code. */
  follow(suite: SuitePayload): Promise<number>;
}

/** One line per cell: its experiment and profile, its run, and its state or verdict (`progress` as `chaos status` shows a run's). */
export async function printSuite(out: Writable, suite: SuitePayload, progress: (runId: string) => Promise<string>): Promise<void> {
  out.write(
    `suite ${suite.suite_id} (${suite.name}): ${suite.experiments.length} experiment(s) × ${suite.profiles.length} profile(s) = ${suite.cells.length} cells\n`,
  );
  out.write(`report: ${suite.report_path}\n`);
  const rows = [['experiment', 'profile', 'run', 'progress / verdict']];
  for (const cell of suite.cells) rows.push([cell.experiment, cell.profile, cell.run_id, await progress(cell.run_id)]);
  out.write(table(rows));
}

/** Suites in the Redis the environment names. */
export function suiteStatusFromRedis(ctx: CliContext): SuiteStatus {
  return {
    async find(arg) {
      const queue = await openExistingQueue(ctx.env);
      try {
        return await findSuite(queue, arg);
      } finally {
        await queue.close();
      }
    },
    async follow(suite) {
      const queue = await openExistingQueue(ctx.env);
      const say = (line: string) => ctx.stderr.write(`${line}\n`);
      try {
        say(`following suite ${suite.suite_id} (${suite.name}): ${suite.cells.length} cells; Ctrl-C stops following, the suite goes on`);
        const followed = await followSuite(queue, suite, ctx.signal, say, { onInterrupt: 'let-go' });
        if (!followed) return EXIT.interrupted;
        finishSuite(followed.report, null, { ctx }, say);
        return suiteExitCode(followed.report);
      } finally {
        await queue.close();
      }
    },
  };
}
