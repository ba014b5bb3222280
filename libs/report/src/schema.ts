// The report: the one journal of a run, versioned (schema_version), from which every view (the
// terminal summary, `chaos score`, later renderings) is made. It holds what the spec lists: the
// experiment, every repetition (run id, canary, exit codes, cost, duration, probe results, abort or
// error), the probe outcomes, the score, the verdict, the warnings and where the artifacts are.
import { z } from 'zod';
import { experimentSchema } from '@intutic/experiment';
import { repetitionFactsSchema } from '@intutic/scoring';

export const REPORT_SCHEMA_VERSION = 1;

const kindSchema = z.enum(['baseline', 'faulted']);
const interval = z.tuple([z.number(), z.number()]);

export const reportRepetitionSchema = z.object({
  index: z.number().int().positive(),
  kind: kindSchema,
  /** ran: it ran to the end (or to its abort); failed: the job failed (a runner error, its worker died). */
  status: z.enum(['ran', 'failed']),
  run_id: z.string(),
  canary: z.string(),
  agent_exit_code: z.number().int().nullable(),
  verify_exit_code: z.number().int().nullable(),
  cost_usd: z.number().nonnegative(),
  /** Faulted: cost ÷ mean baseline cost, when that is known and not 0. */
  cost_multiplier: z.number().nullable(),
  duration_s: z.number().nonnegative(),
  stdout_contains_canary: z.boolean(),
  /** Faulted repetitions only: probe id -> true (passed), false (failed), null (not evaluated). */
  probes: z.record(z.string(), z.boolean().nullable()),
  injections: z.number().int().nonnegative(),
  abort: z.object({ condition: z.enum(['destructive_attempt', 'cost_usd_above', 'wall_clock_s_above']), detail: z.string() }).nullable(),
  error: z.string().nullable(),
  malformed_event_lines: z.number().int().nonnegative(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  artifacts: z.object({ dir: z.string(), events: z.string(), agent_output: z.string(), agent_stderr: z.string(), verify_output: z.string(), proxy_log: z.string() }),
  /** What the observer distilled from the events file; `chaos score` recomputes it from the artifacts. */
  facts: repetitionFactsSchema,
});
export type ReportRepetition = z.infer<typeof reportRepetitionSchema>;

export const reportProbeSchema = z.object({
  id: z.string(),
  weight: z.number(),
  value: z.number().nullable(),
  /** Faulted repetitions the probe evaluated (true or false). */
  evaluated: z.number().int().nonnegative(),
  passed: z.number().int().nonnegative(),
  not_evaluated: z.number().int().nonnegative(),
  pass_rate: z.number().nullable(),
  /** task_success: whether every evaluated repetition passed (pass^k); other probes carry it too. */
  pass_k: z.boolean().nullable(),
  /** pass^k estimates for k = 1..evaluated. */
  pass_hat_k: z.array(z.number()),
  wilson95: interval.nullable(),
  in_score: z.boolean(),
  threshold: z.unknown().nullable(),
});
export type ReportProbe = z.infer<typeof reportProbeSchema>;

export const carriedEntrySchema = z.object({ path: z.string(), action: z.enum(['carried_in', 'kept_committed']), rewritten: z.boolean() });

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
  verdict: z.enum(['scored', 'aborted', 'invalid']),
  verdict_reason: z.string(),
  exit_code: z.number().int(),
  /** 0–100; null when no probe evaluated a repetition or the run is invalid. */
  score: z.number().nullable(),
  score_interval: interval.nullable(),
  complete: z.boolean(),
  repetitions: z.array(reportRepetitionSchema),
  /** Repetitions that never ran because the run had already ended, and why. */
  skipped: z.array(z.object({ index: z.number().int().positive(), kind: kindSchema, reason: z.string() })),
  probes: z.array(reportProbeSchema),
  faults_fired: z.array(z.object({ index: z.number(), id: z.string(), injections: z.number(), repetitions: z.array(z.number()) })),
  baseline_cost_usd: z.number().nullable(),
  malformed_event_lines: z.number().int().nonnegative(),
  warnings: z.array(z.string()),
  report_path: z.string(),
  artifacts_dir: z.string(),
});
export type Report = z.infer<typeof reportSchema>;
