// What scoring consumes: one record per repetition, as the runner saw it, carrying the compact facts
// a RepetitionObserver distilled from that repetition's events. Plain JSON with a schema: records
// travel from workers to the scorer and into the report, so the events are read once, where they are.
// This is the repetition contract's one home: the queue's outcome and the report's repetition extend
// repetitionRunSchema, and repetitionRunOf copies that part from one to the other.
import { z } from 'zod';
import { abortConditionSchema, componentSchema } from '@intutic/events';

const count = z.number().int().nonnegative();

export const repetitionFactsSchema = z.object({
  /** Well-formed events observed. */
  events: count,
  /** Per reporting component, the union of fault indexes its plan_loaded events named. */
  plan_loaded: z.array(z.object({ source: componentSchema, faults: z.array(count) })),
  /** Mutating faults a component refused to apply where it ran (its mutating_fault_refused warnings). */
  refused: z.array(z.object({ source: componentSchema, faults: z.array(count), detail: z.string() })).default([]),
  /** Injections per plan fault index; retries of one hold count once. */
  injections: z.array(z.object({ fault_index: count, fault_id: z.string(), count })),
  /** fault_injected events naming a fault index the experiment does not have (still "a fault fired"). */
  unknown_fault_injections: count,
  cost_usd: z.number().nonnegative(),
  llm_calls: count,
  /** Model calls charged at the highest known price because the model was not in the price table. */
  priced_as_unknown_calls: count,
  tool_calls: count,
  destructive: z.object({ count, first: z.object({ tool: z.string(), reason: z.string().nullable() }).nullable() }),
  policy_hits: z.object({
    count,
    first: z.object({ tool: z.string(), rule: z.string(), decision: z.string() }).nullable(),
  }),
  /** recovered_within, value-free: how many counted tool calls after the last injection until the recovering one. */
  recovery: z
    .object({
      fault_index: count,
      fault_id: z.string(),
      target: z.string(),
      /** After a model or egress fault any successful tool call counts. */
      any_tool: z.boolean(),
      recovered: z.boolean(),
      /** Counted tool calls after the fault, up to and including the recovering one. */
      calls: count,
      /** Of those, calls whose outcome the harness did not report (absent in older reports: none). */
      unknown_calls: count.optional(),
    })
    .nullable(),
  /** retry_after_respected: injected 429s and how many were followed by a model call too soon. */
  rate_limits: z.object({
    injected: count,
    too_soon: count,
    first_too_soon: z.object({ waited_s: z.number(), retry_after_s: z.number() }).nullable(),
  }),
  /** no_tight_loop: events carrying an input hash and the most identical calls seen within 10 s. */
  identical_calls: z.object({
    hashed_calls: count,
    max_within_10s: count,
    worst: z.object({ tool: z.string(), count }).nullable(),
  }),
});
export type RepetitionFacts = z.infer<typeof repetitionFactsSchema>;

export const REPETITION_KINDS = ['baseline', 'faulted'] as const;
export const repetitionKindSchema = z.enum(REPETITION_KINDS);
export type RepetitionKind = z.infer<typeof repetitionKindSchema>;

/** Why the runner stopped a repetition. */
export const abortRecordSchema = z.object({ condition: abortConditionSchema, detail: z.string() });
export type AbortRecord = z.infer<typeof abortRecordSchema>;

/** A repetition as it ran, before its events are read: every record of a repetition begins with this. */
export const repetitionRunSchema = z.object({
  /** Counted from 1 in a run; scoring accepts any order and any start. */
  index: count,
  kind: repetitionKindSchema,
  run_id: z.string(),
  canary: z.string(),
  /** null: not run (skipped or aborted). */
  agent_exit_code: z.number().int().nullable(),
  verify_exit_code: z.number().int().nullable(),
  duration_s: z.number().nonnegative(),
  stdout_contains_canary: z.boolean(),
  abort: abortRecordSchema.nullable(),
  /** A runner error (the proxy died, the sandbox failed): every probe of the repetition is null. */
  error: z.string().nullable(),
});
export type RepetitionRun = z.infer<typeof repetitionRunSchema>;

const REPETITION_RUN_KEYS = Object.keys(repetitionRunSchema.shape) as (keyof RepetitionRun)[];

/** The run part of any record of a repetition (a job's outcome, a report's repetition), nothing else. */
export function repetitionRunOf(from: RepetitionRun): RepetitionRun {
  return Object.fromEntries(REPETITION_RUN_KEYS.map((key) => [key, from[key]])) as RepetitionRun;
}

export const repetitionRecordSchema = repetitionRunSchema.extend({
  malformed_event_lines: count,
  facts: repetitionFactsSchema,
});
export type RepetitionRecord = z.infer<typeof repetitionRecordSchema>;

export function emptyFacts(): RepetitionFacts {
  return {
    events: 0,
    plan_loaded: [],
    refused: [],
    injections: [],
    unknown_fault_injections: 0,
    cost_usd: 0,
    llm_calls: 0,
    priced_as_unknown_calls: 0,
    tool_calls: 0,
    destructive: { count: 0, first: null },
    policy_hits: { count: 0, first: null },
    recovery: null,
    rate_limits: { injected: 0, too_soon: 0, first_too_soon: null },
    identical_calls: { hashed_calls: 0, max_within_10s: 0, worst: null },
  };
}

/** Every injection of the repetition, holds counted once. */
export function injectionCount(facts: RepetitionFacts): number {
  return facts.injections.reduce((sum, i) => sum + i.count, 0) + facts.unknown_fault_injections;
}
