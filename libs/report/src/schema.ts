// The report: the one journal of a run, versioned (schema_version), from which every view (the
// terminal summary, `chaos score`, later renderings) is made. It holds what the spec lists: the
// experiment, every repetition (run id, canary, exit codes, cost, duration, probe results, abort or
// error), the probe outcomes, the score, the verdict, the warnings and where the artifacts are.
// Most of it is scoring's own contract (libs/scoring: records.ts, result.ts), embedded as it is; what
// is loosened here is only what lets a report written by another version still be read.
import { z } from 'zod';
import { experimentSchema } from '@intutic/experiment';
import {
  faultFiredSchema,
  intervalSchema,
  probeOutcomeSchema,
  probeResultSchema,
  repetitionKindSchema,
  repetitionRecordSchema,
  repetitionScoreSchema,
  runVerdictSchema,
} from '@intutic/scoring';

export const REPORT_SCHEMA_VERSION = 1;

/** Where a repetition's artifacts are, in the directory named after the report. */
export const artifactPathsSchema = z.object({
  dir: z.string(),
  events: z.string(),
  /** The agent's stdout (what failure_surfaced reads) and, apart, its stderr. */
  agent_output: z.string(),
  agent_stderr: z.string(),
  verify_output: z.string(),
  proxy_log: z.string(),
});
export type ArtifactPaths = z.infer<typeof artifactPathsSchema>;

export const reportRepetitionSchema = repetitionRecordSchema.extend({
  index: z.number().int().positive(),
  /** ran: it ran to the end (or to its abort); failed: the job failed (a runner error, its worker died). */
  status: z.enum(['ran', 'failed']),
  ...repetitionScoreSchema.pick({ cost_usd: true, cost_multiplier: true, injections: true }).shape,
  /** Faulted repetitions only: probe id -> true (passed), false (failed), null (not evaluated); any id, as written. */
  probes: z.record(z.string(), probeResultSchema),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  artifacts: artifactPathsSchema,
  // facts (inherited): what the observer distilled from the events file; `chaos score` recomputes it from the artifacts.
});
export type ReportRepetition = z.infer<typeof reportRepetitionSchema>;

/** scoreRun's probe outcome as it is; an id or a threshold of another version is still read. */
export const reportProbeSchema = probeOutcomeSchema.extend({
  id: z.string(),
  threshold: z.unknown().nullable(),
});
export type ReportProbe = z.infer<typeof reportProbeSchema>;

export const carriedEntrySchema = z.object({ path: z.string(), action: z.enum(['carried_in', 'kept_committed', 'merged']), rewritten: z.boolean() });

export const reportSchema = z.object({
  schema_version: z.literal(REPORT_SCHEMA_VERSION),
  generator: z.object({ name: z.literal('intutic'), version: z.string() }),
  run: z.object({
    id: z.string(),
    experiment_file: z.string(),
    commit: z.string(),
    repo_path: z.string(),
    remote: z.string().nullable(),
    sandbox_image: z.string(),
    created_at: z.string(),
    finished_at: z.string(),
    carried_in: z.array(carriedEntrySchema),
    /** Warnings from outside scoring (carry-in, the runner); `warnings` repeats them with scoring's. */
    warnings: z.array(z.string()),
  }),
  experiment: experimentSchema,
  verdict: runVerdictSchema,
  verdict_reason: z.string(),
  exit_code: z.number().int(),
  /** 0–100; null when no probe evaluated a repetition or the run is invalid. */
  score: z.number().nullable(),
  score_interval: intervalSchema.nullable(),
  complete: z.boolean(),
  repetitions: z.array(reportRepetitionSchema),
  /** Repetitions that never ran because the run had already ended, and why. */
  skipped: z.array(z.object({ index: z.number().int().positive(), kind: repetitionKindSchema, reason: z.string() })),
  probes: z.array(reportProbeSchema),
  faults_fired: z.array(faultFiredSchema),
  baseline_cost_usd: z.number().nullable(),
  malformed_event_lines: z.number().int().nonnegative(),
  warnings: z.array(z.string()),
  report_path: z.string(),
  artifacts_dir: z.string(),
});
export type Report = z.infer<typeof reportSchema>;
