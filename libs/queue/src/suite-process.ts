// The suite's two jobs on the worker side: charging a finished cell's cost to the suite (and, past
// the ceiling, cancelling every cell still to come), and the suite job itself, which runs once all
// cells have ended and assembles the suite report from what their scoring jobs returned.
import type { Job } from 'bullmq';
import type { SuiteReport } from '@intutic/report';
import { scoringJobId } from './names.ts';
import type { RunPayload, RunResult } from './payload.ts';
import type { RunQueue } from './run-queue.ts';
import { explainFailure } from './status.ts';
import { assembleSuiteReport, cellCost, suiteCostKey, suitePayloadSchema } from './suite-flow.ts';
import { reportSchema } from '@intutic/report';

const KEEP_S = 30 * 24 * 3600;

export const suiteStopKey = (prefix: string, suiteId: string) => `${prefix}:chaos-suite:${suiteId}:stop`;

/** Writes the suite report where the suite asked (the runner's job: the queue touches no files). */
export type WriteSuiteReport = (report: SuiteReport) => Promise<void>;

/**
 * After a cell's scoring: add what it spent to the suite's total; the first cell to take the total
 * past the ceiling records why the suite stopped and cancels every cell (a finished one ignores it).
 */
export async function chargeSuiteCost(rq: RunQueue, payload: RunPayload, result: RunResult): Promise<void> {
  const suite = payload.suite;
  if (!suite) return;
  const report = reportSchema.safeParse(result.report);
  const spent = report.success ? cellCost(report.data) : 0;
  const total = Number(await rq.redis.incrbyfloat(suiteCostKey(rq.config.prefix, suite.id), spent));
  await rq.redis.expire(suiteCostKey(rq.config.prefix, suite.id), KEEP_S);
  if (suite.cost_ceiling_usd === null || total <= suite.cost_ceiling_usd) return;
  const reason = `the suite's cost ceiling of ${suite.cost_ceiling_usd} USD was reached (${total.toFixed(2)} USD spent)`;
  const first = (await rq.redis.set(suiteStopKey(rq.config.prefix, suite.id), reason, 'EX', KEEP_S, 'NX')) === 'OK';
  if (first) for (const runId of suite.run_ids) await rq.cancel(runId, reason);
}

export async function processSuite(rq: RunQueue, job: Job, write: WriteSuiteReport | undefined): Promise<SuiteReport> {
  const suite = suitePayloadSchema.parse(job.data);
  const values = await job.getChildrenValues();
  const byJobId = new Map(Object.entries(values).map(([key, value]) => [key.slice(key.lastIndexOf(':') + 1), value]));
  const failuresByJob = await job.getIgnoredChildrenFailures();
  const results = new Map<string, unknown>();
  const failures = new Map<string, string>();
  for (const { run_id } of suite.cells) {
    const jobId = scoringJobId(run_id);
    if (byJobId.has(jobId)) results.set(run_id, byJobId.get(jobId));
    const failure = Object.entries(failuresByJob).find(([key]) => key.endsWith(`:${jobId}`));
    if (failure) failures.set(run_id, `its scoring job failed: ${explainFailure(failure[1]) ?? 'unknown reason'}`);
  }
  const stoppedReason = await rq.redis.get(suiteStopKey(rq.config.prefix, suite.suite_id));
  const report = assembleSuiteReport(suite, results, { finishedAt: new Date().toISOString(), stoppedReason, failures });
  await write?.(report);
  await job.log(`${new Date().toISOString()} suite report: ${report.cells.filter((c) => c.status === 'done').length}/${report.cells.length} cells done`);
  return report;
}
