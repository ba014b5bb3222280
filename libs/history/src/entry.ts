// One line of the run history: what a finished run was (experiment, commit, sandbox image, verdict,
// score, when, where its report is) plus each probe's pass counts, so `chaos compare` still works
// after the report itself is gone (reports default to the OS temp directory). Plain data, versioned.
// Its fields are the report's (picked from reportSchema), so a history line and a report never disagree.
import { z } from 'zod';
import { reportProbeSchema, reportSchema, type Report, type ReportProbe } from '@intutic/report';

export const HISTORY_ENTRY_VERSION = 1;

/** What a comparison needs of a probe: the report's, fewer fields. */
export const historyProbeSchema = reportProbeSchema.pick({ id: true, weight: true, value: true, passed: true, evaluated: true });
export type HistoryProbe = z.infer<typeof historyProbeSchema>;

export function historyProbeOf({ id, weight, value, passed, evaluated }: ReportProbe): HistoryProbe {
  return { id, weight, value, passed, evaluated };
}

export const historyEntrySchema = z.object({
  v: z.literal(HISTORY_ENTRY_VERSION),
  run_id: z.string().min(1),
  experiment: z.string(),
  experiment_file: z.string(),
  report_path: z.string(),
  commit: z.string(),
  sandbox_image: z.string(),
  ...reportSchema.pick({ verdict: true, exit_code: true, score: true, score_interval: true }).shape,
  /** The fault ids in plan order: runs with other faults measure other things. */
  faults: z.array(z.string()),
  probes: z.array(historyProbeSchema),
  repetitions: z.number().int().nonnegative(),
  cost_usd: z.number().nonnegative(),
  started_at: z.string(),
  finished_at: z.string(),
  recorded_at: z.string(),
  intutic_version: z.string(),
  /** Set when the run was one cell of a suite: which suite, and the profile (column) it ran as. */
  suite: z.object({ id: z.string(), name: z.string(), profile: z.string() }).optional(),
});
export type HistoryEntry = z.infer<typeof historyEntrySchema>;

export function entryOfReport(report: Report, recordedAt: Date): HistoryEntry {
  return {
    v: HISTORY_ENTRY_VERSION,
    run_id: report.run.id,
    experiment: report.experiment.name,
    experiment_file: report.run.experiment_file,
    report_path: report.report_path,
    commit: report.run.commit,
    sandbox_image: report.run.sandbox_image,
    verdict: report.verdict,
    exit_code: report.exit_code,
    score: report.score,
    score_interval: report.score_interval,
    faults: report.experiment.faults.map((f) => f.id),
    probes: report.probes.map(historyProbeOf),
    repetitions: report.repetitions.length,
    cost_usd: report.repetitions.reduce((sum, r) => sum + r.cost_usd, 0),
    started_at: report.run.created_at,
    finished_at: report.run.finished_at,
    recorded_at: recordedAt.toISOString(),
    intutic_version: report.generator.version,
  };
}
