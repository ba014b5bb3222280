// A suite (issue 37) as ONE BullMQ flow: its root, the suite job, has each cell's ordinary run flow
// (scoring job ← repetitions) as a child, so cells run on every online worker, each keeps the run's
// own phases and crash handling, and the suite job runs once every cell has ended, failed or not
// (ignoreDependencyOnFailure), to write the suite report from the cells' own reports.
//
// The suite's cost ceiling: each cell's scoring job adds its cost to the suite's counter; once it is
// past the ceiling every cell not yet finished is cancelled through the run's own cancel key, so
// its remaining repetitions skip with that reason (see chargeSuiteCost).
import type { FlowChildJob, FlowJob } from 'bullmq';
import { z } from 'zod';
import {
  reportSchema,
  suiteExperimentSchema,
  suiteProfileSchema,
  SUITE_REPORT_SCHEMA_VERSION,
  type Report,
  type SuiteCell,
  type SuiteReport,
} from '@intutic/report';
import { buildRunFlow, jobOptions } from './flow.ts';
import { runResultSchema, type RunPayload } from './payload.ts';

export const SUITE_JOB_NAME = 'suite';

export function suiteJobId(suiteId: string): string {
  return `${suiteId}-suite`;
}

export function suiteCostKey(prefix: string, suiteId: string): string {
  return `${prefix}:chaos-suite:${suiteId}:cost`;
}

export const suitePayloadSchema = z.strictObject({
  suite_id: z.string().regex(/^[A-Za-z0-9._-]{1,80}$/),
  name: z.string(),
  file: z.string(),
  created_at: z.string(),
  repetitions: z.number().int().positive(),
  cost_ceiling_usd: z.number().positive().nullable(),
  profiles: z.array(suiteProfileSchema),
  experiments: z.array(suiteExperimentSchema),
  cells: z.array(z.strictObject({ experiment: z.string(), profile: z.string(), run_id: z.string() })),
  report_path: z.string(),
  generator_version: z.string(),
});
export type SuitePayload = z.infer<typeof suitePayloadSchema>;

/**
 * The suite's flow: the suite job over every cell's run flow (each cell's scoring job a child). Each
 * cell has its own priority, `priorities[i]` (lower first), as separate runs do: a worker finishes a
 * cell, its scoring included, before it takes the next cell's first repetition, so the matrix fills
 * in cell by cell instead of every score waiting for the last repetition of the suite.
 */
export function buildSuiteFlow(suite: SuitePayload, cells: RunPayload[], options: { priorities: number[]; queueName?: string }): FlowJob {
  const valid = suitePayloadSchema.parse(suite);
  if (options.priorities.length !== cells.length)
    throw new Error(`a suite of ${cells.length} cells needs as many priorities, not ${options.priorities.length}`);
  const children: FlowChildJob[] = cells.map((payload, index) => {
    const run = buildRunFlow(payload, { priority: options.priorities[index]!, ...(options.queueName ? { queueName: options.queueName } : {}) });
    // A cell that fails must not leave the suite waiting forever: the suite job reports it as error.
    return { ...run, opts: { ...run.opts, ignoreDependencyOnFailure: true } };
  });
  const queueName = options.queueName ?? children[0]?.queueName ?? 'chaos';
  // The suite job runs once every cell has ended; it takes the last cell's place in the order.
  return { name: SUITE_JOB_NAME, queueName, data: valid, opts: jobOptions(suiteJobId(valid.suite_id), options.priorities.at(-1) ?? 1), children };
}

/** What a cell spent: every repetition's model cost. */
export function cellCost(report: Report): number {
  return report.repetitions.reduce((sum, r) => sum + (r.cost_usd ?? 0), 0);
}

/** What each cell's scoring job returned, keyed by run id; a cell missing here failed or was lost. */
export type CellResults = ReadonlyMap<string, unknown>;

/** The suite report from the cells' results: a cell without a valid result is an error, or skipped when the suite stopped it. */
export function assembleSuiteReport(
  suite: SuitePayload,
  results: CellResults,
  context: { finishedAt: string; stoppedReason: string | null; failures: ReadonlyMap<string, string> },
): SuiteReport {
  let cost = 0;
  const cells: SuiteCell[] = suite.cells.map(({ experiment, profile, run_id }) => {
    const result = runResultSchema.safeParse(results.get(run_id));
    const report = result.success ? reportSchema.safeParse(result.data.report) : undefined;
    if (report?.success) {
      // A cell the ceiling cut short: its report says what ran, the cell says why the rest did not.
      const stopped = context.stoppedReason !== null && report.data.skipped.length > 0;
      // A repetition whose job failed (its worker died, or the runner broke) leaves a report, but the
      // run broke: the cell is an error, with the report kept, not the agent's result.
      const lost = report.data.repetitions.find((r) => r.status === 'failed');
      cost += cellCost(report.data);
      if (lost) {
        const reason = `${lost.kind} repetition ${lost.index} (${lost.run_id}): ${lost.error ?? 'its job failed'}`;
        return { experiment, profile, status: 'error', run_id, reason, report: report.data };
      }
      if (stopped) return { experiment, profile, status: 'skipped', run_id, reason: context.stoppedReason, report: report.data };
      return { experiment, profile, status: 'done', run_id, reason: null, report: report.data };
    }
    const reason =
      context.failures.get(run_id) ??
      (result.success ? 'the cell wrote no readable report' : 'the cell ended without a result (its worker was lost, or it failed)');
    return { experiment, profile, status: context.stoppedReason && !context.failures.has(run_id) ? 'skipped' : 'error', run_id, reason, report: null };
  });
  return {
    schema_version: SUITE_REPORT_SCHEMA_VERSION,
    generator: { name: 'intutic', version: suite.generator_version },
    suite: {
      id: suite.suite_id,
      name: suite.name,
      file: suite.file,
      created_at: suite.created_at,
      finished_at: context.finishedAt,
      repetitions: suite.repetitions,
      cost_ceiling_usd: suite.cost_ceiling_usd,
      stopped_reason: context.stoppedReason,
    },
    profiles: suite.profiles,
    experiments: suite.experiments,
    cells,
    cost_usd: cost,
    report_path: suite.report_path,
  };
}
