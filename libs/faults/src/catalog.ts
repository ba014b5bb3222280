// The fault catalog: the one definition of every fault, its injecting components, its safety class
// and its option schema. The validator, `intutic chaos list` and every injector import this; there is
// no second copy anywhere.
import { z } from 'zod';

export const injectorSchema = z.enum(['proxy', 'gate', 'mcp-proxy']);
export type Injector = z.infer<typeof injectorSchema>;
export type Safety = 'fail-safe' | 'mutating';
export type MatchKey = 'tool' | 'host' | 'model';

export const FAULT_IDS = [
  'llm.rate_limit',
  'llm.upstream_5xx',
  'llm.context_trim',
  'llm.model_degrade',
  'tool.error',
  'tool.stale_data',
  'mcp.toolset_change',
  'permission.deny_or_delay',
  'inject.tool_result',
  'egress.dns_fail',
  'egress.credential_401',
] as const;
export type FaultId = (typeof FAULT_IDS)[number];

export interface OptionDoc {
  name: string;
  type: string;
  default?: string;
  description: string;
}

export interface FaultDefinition {
  id: FaultId;
  injectedBy: readonly Injector[];
  safety: Safety;
  effect: string;
  /** The match keys this fault can match on; any other key could never match and is rejected. */
  matchKeys: readonly MatchKey[];
  /** A match key that must be present. */
  requiredMatch?: MatchKey;
  options: z.ZodType<Record<string, unknown>>;
  optionDocs: readonly OptionDoc[];
}

const noOptions = z.strictObject({});

const redefinedTool = z.strictObject({
  name: z.string().min(1),
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown()).optional(),
});

export const FAULTS: readonly FaultDefinition[] = [
  {
    id: 'llm.rate_limit',
    injectedBy: ['proxy'],
    safety: 'fail-safe',
    effect: 'the model call returns 429',
    matchKeys: ['model'],
    options: z.strictObject({ retry_after_s: z.number().int().min(0).max(3600).default(5) }),
    optionDocs: [{ name: 'retry_after_s', type: 'integer 0–3600', default: '5', description: 'the Retry-After the 429 carries' }],
  },
  {
    id: 'llm.upstream_5xx',
    injectedBy: ['proxy'],
    safety: 'fail-safe',
    effect: 'the model call fails with a 5xx, or a stream is cut',
    matchKeys: ['model'],
    options: z.strictObject({
      status: z.union([z.literal(500), z.literal(502), z.literal(503), z.literal(529)]).default(500),
      stream_cut_after_chunks: z.number().int().min(0).max(100_000).optional(),
    }),
    optionDocs: [
      { name: 'status', type: '500 | 502 | 503 | 529', default: '500', description: 'the status returned' },
      { name: 'stream_cut_after_chunks', type: 'integer ≥ 0', description: 'cut a streaming response after this many chunks instead' },
    ],
  },
  {
    id: 'llm.context_trim',
    injectedBy: ['proxy'],
    safety: 'mutating',
    effect: 'older messages (or the system prompt) are dropped',
    matchKeys: ['model'],
    options: z.strictObject({
      drop_oldest: z.number().int().min(1).max(10_000).optional(),
      drop_system: z.boolean().default(false),
    }),
    optionDocs: [
      { name: 'drop_oldest', type: 'integer ≥ 1', description: 'drop this many of the oldest messages' },
      { name: 'drop_system', type: 'boolean', default: 'false', description: 'drop the system prompt' },
    ],
  },
  {
    id: 'llm.model_degrade',
    injectedBy: ['proxy'],
    safety: 'mutating',
    effect: 'the request is served by another model',
    matchKeys: ['model'],
    options: z.strictObject({ to_model: z.string().min(1) }),
    optionDocs: [{ name: 'to_model', type: 'string', description: 'the model that serves the request instead (required)' }],
  },
  {
    id: 'tool.error',
    injectedBy: ['gate', 'mcp-proxy'],
    safety: 'fail-safe',
    effect: 'the tool call fails with a message (a gate SDK throws it with the code CHAOS_FAULT)',
    matchKeys: ['tool'],
    options: z.strictObject({ message: z.string().min(1).max(1000).default('the tool call failed') }),
    optionDocs: [{ name: 'message', type: 'string', default: '"the tool call failed"', description: 'the error message (the canary is appended)' }],
  },
  {
    id: 'tool.stale_data',
    injectedBy: ['mcp-proxy'],
    safety: 'mutating',
    effect: 'the tool returns a fixed, out-of-date result',
    matchKeys: ['tool'],
    options: z.strictObject({ result: z.union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())]) }),
    optionDocs: [{ name: 'result', type: 'string | object', description: 'the result returned instead of the real one (required)' }],
  },
  {
    id: 'mcp.toolset_change',
    injectedBy: ['mcp-proxy'],
    safety: 'mutating',
    effect: 'tools disappear or are redefined mid-session',
    matchKeys: ['tool'],
    options: z.strictObject({
      remove: z.array(z.string().min(1)).default([]),
      redefine: z.array(redefinedTool).default([]),
    }),
    optionDocs: [
      { name: 'remove', type: 'string[]', description: 'tool names that disappear' },
      { name: 'redefine', type: '{name, description?, input_schema?}[]', description: 'tools whose definition changes' },
    ],
  },
  {
    id: 'permission.deny_or_delay',
    injectedBy: ['gate'],
    safety: 'fail-safe',
    effect:
      'the call is denied (deny), or held as an approval hold holds it: its identical retry is let through (delay) or denied (hold_then_deny) once delay_s has passed',
    matchKeys: ['tool'],
    options: z.strictObject({
      mode: z.enum(['deny', 'delay', 'hold_then_deny']).default('deny'),
      delay_s: z.number().min(0).max(600).default(0),
    }),
    optionDocs: [
      { name: 'mode', type: 'deny | delay | hold_then_deny', default: 'deny', description: 'how the call is refused' },
      { name: 'delay_s', type: 'number 0–600', default: '0', description: 'how long a hold lasts from the first refusal' },
    ],
  },
  {
    id: 'inject.tool_result',
    injectedBy: ['mcp-proxy'],
    safety: 'mutating',
    effect: 'the tool result carries an injected payload',
    matchKeys: ['tool'],
    options: z.strictObject({ payload: z.string().min(1).max(10_000) }),
    optionDocs: [{ name: 'payload', type: 'string', description: 'the text carried inside the real result (required)' }],
  },
  {
    id: 'egress.dns_fail',
    injectedBy: ['proxy'],
    safety: 'fail-safe',
    effect: 'the host stops resolving',
    matchKeys: ['host'],
    requiredMatch: 'host',
    options: noOptions,
    optionDocs: [{ name: 'match.host', type: 'host pattern', description: 'the host that stops resolving (required)' }],
  },
  {
    id: 'egress.credential_401',
    injectedBy: ['proxy'],
    safety: 'fail-safe',
    effect: 'the host answers 401, as if the credential were revoked',
    matchKeys: ['host'],
    requiredMatch: 'host',
    options: noOptions,
    optionDocs: [{ name: 'match.host', type: 'host pattern', description: 'the host whose credential is revoked (required)' }],
  },
];

const byId = new Map<string, FaultDefinition>(FAULTS.map((f) => [f.id, f]));

export function isFaultId(id: string): id is FaultId {
  return byId.has(id);
}

export function getFault(id: FaultId): FaultDefinition {
  const fault = byId.get(id);
  if (!fault) throw new Error(`unknown fault id ${id}`);
  return fault;
}

/** The faults a component can inject: gates load a plan and report plan_loaded for these indexes. */
export function faultsInjectedBy(injector: Injector): FaultId[] {
  return FAULTS.filter((f) => f.injectedBy.includes(injector)).map((f) => f.id);
}
