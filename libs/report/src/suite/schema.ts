// The suite report: one journal for an `intutic chaos suite` run (issue 37). Rows are experiments,
// columns profiles, each cell is one ordinary run whose own report is embedded whole, so every suite
// view (JSON, Markdown, JUnit, HTML, history) is rendered from this data and nothing else.
import { z } from 'zod';
import { reportSchema } from '../schema.ts';

export const SUITE_REPORT_SCHEMA_VERSION = 1;

export const suiteProfileSchema = z.object({
  /** The profile's id as the suite names it (`claude-code`, `codex/gpt-5`, a user's own). */
  id: z.string(),
  /** The agent kind the profile starts (`claude-code`, `codex`, `gemini-cli`, `command`). */
  agent: z.string(),
  model: z.string().nullable(),
  /** The sandbox image the profile's cells ran in. */
  image: z.string(),
});
export type SuiteProfile = z.infer<typeof suiteProfileSchema>;

export const suiteExperimentSchema = z.object({
  name: z.string(),
  file: z.string(),
  /** What the experiment injects, as one short line (`registry_down on npm`). */
  fault: z.string(),
});
export type SuiteExperiment = z.infer<typeof suiteExperimentSchema>;

export const suiteCellSchema = z.object({
  experiment: z.string(),
  profile: z.string(),
  /**
   * done: the run ended and has a report; skipped: never started (cost ceiling, cancelled); error: the
   * run broke (failed before a report, or a repetition's job failed: its worker died), not the agent's result.
   */
  status: z.enum(['done', 'skipped', 'error']),
  run_id: z.string().nullable(),
  /** Why a cell is skipped or an error (the lost repetition, for a run that broke). */
  reason: z.string().nullable(),
  report: reportSchema.nullable(),
});
export type SuiteCell = z.infer<typeof suiteCellSchema>;

export const suiteReportSchema = z.object({
  schema_version: z.literal(SUITE_REPORT_SCHEMA_VERSION),
  generator: z.object({ name: z.literal('intutic'), version: z.string() }),
  suite: z.object({
    id: z.string(),
    name: z.string(),
    file: z.string(),
    created_at: z.string(),
    finished_at: z.string(),
    repetitions: z.number().int().positive(),
    cost_ceiling_usd: z.number().nullable(),
    /** Set when the suite's cost ceiling (or a cancel) ended it early. */
    stopped_reason: z.string().nullable(),
  }),
  profiles: z.array(suiteProfileSchema),
  experiments: z.array(suiteExperimentSchema),
  cells: z.array(suiteCellSchema),
  cost_usd: z.number(),
  report_path: z.string(),
});
export type SuiteReport = z.infer<typeof suiteReportSchema>;
