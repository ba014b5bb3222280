// The zod schema of the experiment FILE as written (before defaults are applied and before
// normalization). Each fault's own options are flat keys next to its id; their rules come from the
// option schema in the fault catalog, never from a copy. The JSON Schema for editors is generated
// from this schema, so the descriptions here are what an editor shows.
import { z } from 'zod';
import { ABORT_CONDITIONS, type AbortCondition } from '@intutic/events';
import { FAULTS, PROBES, type FaultDefinition, type FaultId, type ProbeDefinition, type ProbeId } from '@intutic/faults';
import { IMAGE_REFERENCE_PATTERN, MAX_IMAGE_NAME_LENGTH, MAX_IMAGE_REFERENCE_LENGTH, imageName } from './image-reference.ts';
import { MAX_COST_USD, MAX_PROBE_WEIGHT, MAX_WALL_CLOCK_S } from './limits.ts';
import { EXPERIMENT_NAME_PATTERN } from './model.ts';
import { mcpServersSchema } from './mcp-servers.ts';

/** Keys every fault takes besides its own options. */
export const COMMON_FAULT_KEYS = ['id', 'match', 'after_calls', 'times'] as const;
/** The abort conditions a file may list: the events contract's, one entry schema each (below). */
export { ABORT_CONDITIONS };

const MATCH_DESCRIPTIONS = {
  tool: 'tool name; `mcp__server__tool` and `tool` are the same tool; a leading * matches by suffix',
  host: 'host name (no scheme, port or path); a leading * matches by suffix, e.g. "*.example.org"',
  model: 'model name; a leading * matches by suffix',
} as const;

function matchSchemaFor(def: FaultDefinition) {
  const shape: Record<string, z.ZodType> = {};
  for (const key of def.matchKeys) {
    const field = z.string().min(1).describe(MATCH_DESCRIPTIONS[key]);
    shape[key] = key === def.requiredMatch ? field : field.optional();
  }
  const required = def.requiredMatch ? ` ${def.requiredMatch} is required.` : '';
  return z.strictObject(shape).describe(`which calls the fault applies to: ${def.matchKeys.join(' / ')}.${required}`);
}

/** The fault's own option fields, taken from the catalog's schema, with the catalog's docs attached. */
function optionShape(def: FaultDefinition): Record<string, z.ZodType> {
  if (!(def.options instanceof z.ZodObject)) return {};
  const docs = new Map(def.optionDocs.map((d) => [d.name, d]));
  const shape: Record<string, z.ZodType> = {};
  for (const [name, schema] of Object.entries(def.options.shape) as [string, z.ZodType][]) {
    const doc = docs.get(name);
    shape[name] = doc ? schema.describe(`${doc.description} (${doc.type}${doc.default ? `, default ${doc.default}` : ''})`) : schema;
  }
  return shape;
}

function faultEntrySchema(def: FaultDefinition) {
  const shape = {
    id: z.literal(def.id).describe(def.effect),
    match: def.requiredMatch ? matchSchemaFor(def) : matchSchemaFor(def).optional(),
    after_calls: z.int().min(0).default(0).describe('skip this many matching calls first (default 0)'),
    times: z.int().min(1).optional().describe('inject at most this many times; absent = every match'),
    ...optionShape(def),
  };
  // A catalog schema that is not a plain object keeps its own keys: the catalog parse checks them.
  const object = def.options instanceof z.ZodObject ? z.strictObject(shape) : z.looseObject(shape);
  return object.meta({ title: def.id, description: `${def.effect} (injected by ${def.injectedBy.join(', ')}; ${def.safety})` });
}

function probeValueSchema(value: NonNullable<ProbeDefinition['value']>) {
  const base = value.integer ? z.int() : z.number();
  const bounded = value.exclusiveMin ? base.gt(value.min) : base.min(value.min);
  return bounded.describe(value.description);
}

function probeEntrySchema(def: ProbeDefinition) {
  return z
    .strictObject({
      id: z.literal(def.id).describe(def.passesWhen),
      weight: z
        .number()
        .positive()
        .max(MAX_PROBE_WEIGHT)
        .describe(`weight in the resilience score (> 0, at most ${MAX_PROBE_WEIGHT}; only the ratios of weights matter)`),
      ...(def.value ? { value: probeValueSchema(def.value) } : {}),
      min_pass_rate: z.number().min(0).max(1).optional().describe('optional threshold 0..1 for a pass/fail verdict on this probe'),
    })
    .meta({ title: def.id, description: `passes when ${def.passesWhen}` });
}

export const FAULT_ENTRY_SCHEMAS = new Map<FaultId, ReturnType<typeof faultEntrySchema>>(FAULTS.map((def) => [def.id, faultEntrySchema(def)]));
export const PROBE_ENTRY_SCHEMAS = new Map<ProbeId, ReturnType<typeof probeEntrySchema>>(PROBES.map((def) => [def.id, probeEntrySchema(def)]));

const faultEntry = z.discriminatedUnion('id', [...FAULT_ENTRY_SCHEMAS.values()] as [
  ReturnType<typeof faultEntrySchema>,
  ...ReturnType<typeof faultEntrySchema>[],
]);
const probeEntry = z.discriminatedUnion('id', [...PROBE_ENTRY_SCHEMAS.values()] as [
  ReturnType<typeof probeEntrySchema>,
  ...ReturnType<typeof probeEntrySchema>[],
]);

export const ABORT_OBJECT_SCHEMAS = {
  cost_usd_above: z.strictObject({
    cost_usd_above: z
      .number()
      .positive()
      .max(MAX_COST_USD)
      .describe(`stop when the repetition's summed model cost exceeds this many USD (mandatory; at most ${MAX_COST_USD})`),
  }),
  wall_clock_s_above: z.strictObject({
    wall_clock_s_above: z
      .number()
      .positive()
      .max(MAX_WALL_CLOCK_S)
      .describe(`stop when the agent has run longer than this many seconds (at most ${MAX_WALL_CLOCK_S}, a day)`),
  }),
} as const;

/** Each abort condition as the file writes it: a plain item, or a mapping to its limit. */
const ABORT_ENTRY_SCHEMAS = {
  destructive_attempt: z
    .literal('destructive_attempt')
    .describe('stop when a gate decision marks a call as hitting the destructive-command tier, blocked or not'),
  ...ABORT_OBJECT_SCHEMAS,
} satisfies Record<AbortCondition, z.ZodType>;

const abortEntry = z.union([ABORT_ENTRY_SCHEMAS.destructive_attempt, ...Object.values(ABORT_OBJECT_SCHEMAS)]);

/** A shell command: not empty, and not only blanks (sh -c would run nothing and succeed). */
function command() {
  return z.string().min(1, { abort: true }).regex(/\S/, 'must not be only blanks: give the command to run');
}

function imageReference() {
  return z
    .string()
    .min(1, { abort: true })
    .max(MAX_IMAGE_REFERENCE_LENGTH, { abort: true })
    .regex(IMAGE_REFERENCE_PATTERN, {
      message: 'must be an image reference, [registry[:port]/]name[:tag][@digest] with the name in lowercase (e.g. intutic/sandbox:0.1.0-node)',
      abort: true,
    })
    .refine(
      (reference) => imageName(reference).length <= MAX_IMAGE_NAME_LENGTH,
      `the image name (registry and path) must be at most ${MAX_IMAGE_NAME_LENGTH} characters`,
    );
}

export const experimentFileSchema = z
  .strictObject({
    name: z
      .string()
      .regex(EXPERIMENT_NAME_PATTERN, 'must be lowercase letters, digits and hyphens (e.g. registry-down)')
      .describe('lowercase letters, digits and hyphens'),
    description: z.string().optional().describe('what the experiment does, in a sentence'),
    agent: command().optional().describe('the agent command, run in the sandbox through sh -c with the workspace as /work; give it or task'),
    task: command()
      .optional()
      .describe("the agent's prompt: a suite runs it under each profile; `chaos run` under the claude-code profile unless agent is given"),
    mcp_servers: mcpServersSchema.optional(),
    verify: command().describe('run in the sandbox after the agent; its exit code is task success'),
    repeat: z.int().min(1).max(20).describe('baseline repetitions, then as many faulted ones (1–20)'),
    faults: z.array(faultEntry).min(1).describe('the faults injected in the faulted repetitions'),
    probes: z.array(probeEntry).min(1).describe('what is checked on each faulted repetition, with its weight in the score'),
    abort: z.array(abortEntry).min(1).describe('conditions that stop a repetition; cost_usd_above is mandatory'),
    sandbox_image: imageReference().optional().describe('the sandbox image, [registry[:port]/]name[:tag][@digest]; --sandbox-image overrides it'),
  })
  .meta({ title: 'intutic chaos experiment', description: 'An experiment file for `intutic chaos run`.' });

export type ExperimentFile = z.output<typeof experimentFileSchema>;
export const TOP_LEVEL_KEYS = Object.keys(experimentFileSchema.shape);
