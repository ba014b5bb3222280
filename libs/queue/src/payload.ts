// The job contracts: what a run carries (the scoring job's data, captured once at enqueue), what a
// repetition job carries, and what a repetition job returns. Plain data with zod schemas; env vars
// travel by NAME only and nothing here ever holds a secret.
// A repetition's own fields are scoring's repetition contract (libs/scoring records.ts) and its paths
// and carry-in the report's (libs/report schema.ts), held strictly here.
import { z } from 'zod';
import { experimentSchema } from '@intutic/experiment';
import { artifactPathsSchema as reportArtifactPathsSchema, carriedEntrySchema } from '@intutic/report';
import { abortRecordSchema as scoringAbortRecordSchema, repetitionKindSchema, repetitionRunSchema, runVerdictSchema } from '@intutic/scoring';
import { carryInSchema } from '@intutic/workspace';

export const PAYLOAD_SCHEMA_VERSION = 1;

const envNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name');

export const runPayloadSchema = z.strictObject({
  schema_version: z.literal(PAYLOAD_SCHEMA_VERSION),
  run_id: z.string().regex(/^[A-Za-z0-9._-]{1,80}$/),
  created_at: z.string(),
  experiment: experimentSchema,
  /** The experiment file as the user named it, for the report. */
  experiment_file: z.string(),
  /** HEAD at enqueue: a later commit must not change a queued run. */
  commit: z.string().regex(/^[0-9a-f]{40,64}$/),
  repo: z.strictObject({ path: z.string().min(1), remote: z.string().nullable() }),
  carry_in: carryInSchema,
  /** Names of the user's env vars to pass into the sandbox (API keys); values are read by the worker. */
  env_names: z.array(envNameSchema),
  sandbox_image: z.string().min(1),
  report_path: z.string().min(1),
  /** --keep: leave each repetition's worktree in place. */
  keep: z.boolean(),
  /** --parallel: a phase's repetitions may run on several workers at once (phases stay in order). */
  parallel: z.boolean().optional(),
  /** A suite's cell: the suite it belongs to, its cost ceiling, and every cell's run id (to cancel past the ceiling). */
  suite: z.strictObject({ id: z.string(), cost_ceiling_usd: z.number().positive().nullable(), run_ids: z.array(z.string()) }).optional(),
});
export type RunPayload = z.infer<typeof runPayloadSchema>;

export { repetitionKindSchema };

export const repetitionJobDataSchema = z.strictObject({
  run_id: z.string(),
  kind: repetitionKindSchema,
  index: z.number().int().positive(),
  repeat: z.number().int().positive(),
});
export type RepetitionJobData = z.infer<typeof repetitionJobDataSchema>;

/** --parallel: the faulted phase's gate, a child of the scoring job whose children are the baselines. */
export const phaseJobDataSchema = z.strictObject({
  run_id: z.string(),
  kind: z.literal('faulted'),
  repeat: z.number().int().positive(),
});
export type PhaseJobData = z.infer<typeof phaseJobDataSchema>;

export const abortRecordSchema = z.strictObject(scoringAbortRecordSchema.shape);
export type AbortRecord = z.infer<typeof abortRecordSchema>;

export const artifactPathsSchema = z.strictObject(reportArtifactPathsSchema.shape);
export type ArtifactPaths = z.infer<typeof artifactPathsSchema>;

/** What one repetition produced; scoring adds the facts it reads from the events file. */
export const repetitionOutcomeSchema = z.strictObject({
  ...repetitionRunSchema.shape,
  index: z.number().int().positive(),
  abort: abortRecordSchema.nullable(),
  /** The user cancelled the run while this repetition ran. */
  cancelled: z.boolean(),
  started_at: z.string(),
  finished_at: z.string(),
  artifacts: artifactPathsSchema,
  carried_in: z.array(z.strictObject(carriedEntrySchema.shape)),
  warnings: z.array(z.string()),
});
export type RepetitionOutcome = z.infer<typeof repetitionOutcomeSchema>;

/** Why the rest of a run is skipped. It travels up the chain from the job that ended the run. */
export const runStopSchema = z.strictObject({
  kind: z.enum(['aborted', 'invalid', 'cancelled', 'error']),
  reason: z.string(),
  job_id: z.string(),
});
export type RunStop = z.infer<typeof runStopSchema>;

export const repetitionJobResultSchema = z.strictObject({
  status: z.enum(['ran', 'skipped']),
  outcome: repetitionOutcomeSchema.nullable(),
  stop: runStopSchema.nullable(),
});
export type RepetitionJobResult = z.infer<typeof repetitionJobResultSchema>;

/** What a repetition job reports as progress while it runs, so a failed job still says what it was. */
export const repetitionProgressSchema = z.strictObject({
  phase: z.enum(['starting', 'worktree', 'proxy', 'agent', 'verify', 'artifacts', 'done']),
  run_id: z.string(),
  canary: z.string().optional(),
  artifacts_dir: z.string().optional(),
  /** When the repetition really started (ms): BullMQ's own start is rewritten when a dead worker's job is failed as stalled. */
  started_at: z.number().optional(),
  /** The worker's last sign of life while it ran the repetition (ms), renewed every few seconds. */
  alive_at: z.number().optional(),
});
export type RepetitionProgress = z.infer<typeof repetitionProgressSchema>;

/** The scoring job's return value: enough for the CLI to print the summary without reading files. */
export const runResultSchema = z.strictObject({
  verdict: runVerdictSchema,
  score: z.number().nullable(),
  report_path: z.string(),
  report: z.unknown(),
});
export type RunResult = z.infer<typeof runResultSchema>;
