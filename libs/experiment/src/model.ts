// The normalized experiment: what validation produces and what travels in a job payload and a
// report. Defaults are filled in, options are parsed by the fault's own schema, abort is a record.
import { z } from 'zod';
import type { AbortCondition } from '@intutic/events';
import { PROBE_IDS, planFaultSchema, type PlanFault } from '@intutic/faults';
import { mcpServerSchema } from './mcp-servers.ts';

export const EXPERIMENT_NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** A normalized fault is exactly a fault of the plan (libs/faults): compilePlan copies it as it is. */
export const normalizedFaultSchema = planFaultSchema;
export type NormalizedFault = PlanFault;

export const normalizedProbeSchema = z.strictObject({
  id: z.enum(PROBE_IDS),
  weight: z.number().positive(),
  value: z.number().optional(),
  /** Optional per-probe threshold for a pass/fail/inconclusive verdict (issue 9). */
  min_pass_rate: z.number().min(0).max(1).optional(),
});
export type NormalizedProbe = z.infer<typeof normalizedProbeSchema>;

/** One setting per abort condition of the events contract; the compiler holds the two lists together. */
export const abortSettingsSchema = z.strictObject({
  destructive_attempt: z.boolean(),
  cost_usd_above: z.number().positive(),
  wall_clock_s_above: z.number().positive().nullable(),
} satisfies Record<AbortCondition, z.ZodType>);
export type AbortSettings = z.infer<typeof abortSettingsSchema>;

export const experimentSchema = z.strictObject({
  name: z.string().regex(EXPERIMENT_NAME_PATTERN),
  description: z.string(),
  agent: z.string().min(1),
  /** The prompt as the file gave it (`task:`), for a suite to start each profile's agent on; absent when the file gave only agent. */
  task: z.string().min(1).optional(),
  /** The MCP servers the task needs (`mcp_servers:`), which each profile hands its agent; absent when the file names none. */
  mcp_servers: z.record(z.string(), mcpServerSchema).optional(),
  verify: z.string().min(1),
  repeat: z.number().int().min(1).max(20),
  faults: z.array(normalizedFaultSchema).min(1),
  probes: z.array(normalizedProbeSchema).min(1),
  abort: abortSettingsSchema,
  sandbox_image: z.string().min(1).nullable(),
});
export type Experiment = z.infer<typeof experimentSchema>;
