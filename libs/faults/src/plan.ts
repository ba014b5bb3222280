// The plan: compiled once per repetition from the experiment, read by every injecting component.
// Plain data with a schema; it travels by file (path in INTUTIC_CHAOS_PLAN) with the canary sealed
// (sealPlanForFile), and parsing accepts either form and yields the literal canary.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { FAULT_IDS } from './catalog.ts';
import { sealCanary, unsealCanary } from './seal.ts';

export const PLAN_SCHEMA_VERSION = 1;

/** Environment variable names the runner sets in the sandbox (by name, like the rest of its env). */
export const ENV = {
  plan: 'INTUTIC_CHAOS_PLAN',
  events: 'INTUTIC_CHAOS_EVENTS',
  snapshotRules: 'INTUTIC_SNAPSHOT_RULES',
  approvedBypasses: 'INTUTIC_APPROVED_BYPASSES',
} as const;

export const CANARY_PATTERN = /E-INTUTIC-[0-9a-f]{8}/;

export function generateCanary(random: (n: number) => Buffer = randomBytes): string {
  return `E-INTUTIC-${random(4).toString('hex')}`;
}

export const matchSchema = z.strictObject({
  tool: z.string().min(1).optional(),
  host: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
});
export type FaultMatch = z.infer<typeof matchSchema>;

export const planFaultSchema = z.strictObject({
  index: z.number().int().nonnegative(),
  id: z.enum(FAULT_IDS),
  match: matchSchema,
  after_calls: z.number().int().nonnegative(),
  /** null: inject on every matching call after `after_calls`. */
  times: z.number().int().positive().nullable(),
  options: z.record(z.string(), z.unknown()),
});
export type PlanFault = z.infer<typeof planFaultSchema>;

export const planSchema = z.strictObject({
  schema_version: z.literal(PLAN_SCHEMA_VERSION),
  experiment: z.string(),
  run_id: z.string().min(1),
  /** Literal or sealed ("sealed:<hex>"); parsed, always the literal. */
  canary: z.string().transform(unsealCanary).pipe(z.string().regex(CANARY_PATTERN)),
  faults: z.array(planFaultSchema),
});
export type Plan = z.output<typeof planSchema>;

export function parsePlan(raw: unknown): Plan {
  return planSchema.parse(raw);
}

/** The plan as the runner writes it into the sandbox: the same data, the canary sealed. */
export function sealPlanForFile(plan: Plan): Omit<Plan, 'canary'> & { canary: string } {
  return { ...plan, canary: sealCanary(unsealCanary(plan.canary)) };
}
