// What scoreRun says about a run, as schemas: per-probe outcomes, per-repetition scores and the faults
// that fired. The report embeds these as they are (report/src/schema.ts derives from them), so a
// field named here is named so in the report's JSON.
import { z } from 'zod';
import { PROBE_IDS } from '@intutic/faults';
import { repetitionKindSchema } from './records.ts';
import { intervalSchema, thresholdVerdictSchema } from './stats.ts';

const count = z.number().int().nonnegative();

/** One probe in one faulted repetition: true (passed), false (failed) or null (not evaluated). */
export const probeResultSchema = z.boolean().nullable();

export const probeOutcomeSchema = z.object({
  id: z.enum(PROBE_IDS),
  weight: z.number(),
  value: z.number().nullable(),
  /** Faulted repetitions where the probe gave true or false. */
  evaluated: count,
  passed: count,
  not_evaluated: count,
  pass_rate: z.number().nullable(),
  /** Every evaluated repetition passed (pass^k, for task_success the spec's); null when none was evaluated. */
  pass_k: z.boolean().nullable(),
  /** pass_hat_k[k - 1] = C(passed, k) / C(evaluated, k) for k = 1..evaluated. */
  pass_hat_k: z.array(z.number()),
  wilson95: intervalSchema.nullable(),
  /** Whether the probe counts in the score: it evaluated at least one repetition. */
  in_score: z.boolean(),
  threshold: thresholdVerdictSchema.nullable(),
});
export type ProbeOutcome = z.infer<typeof probeOutcomeSchema>;

export const repetitionScoreSchema = z.object({
  index: count,
  kind: repetitionKindSchema,
  run_id: z.string(),
  cost_usd: z.number().nonnegative(),
  /** Faulted: cost ÷ mean baseline cost, when the baseline cost is known and not 0. */
  cost_multiplier: z.number().nullable(),
  injections: count,
  /** Faulted repetitions only: probe id -> passed / failed / not evaluated. */
  probes: z.partialRecord(z.enum(PROBE_IDS), probeResultSchema),
});
export type RepetitionScore = z.infer<typeof repetitionScoreSchema>;

export const faultFiredSchema = z.object({
  index: count,
  id: z.string(),
  /** Injections over all faulted repetitions; a hold counts once. */
  injections: count,
  /** The faulted repetitions in which it fired. */
  repetitions: z.array(count),
});
export type FaultFired = z.infer<typeof faultFiredSchema>;
