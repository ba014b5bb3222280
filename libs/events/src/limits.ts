// The events contract's enums and limits as plain data, without zod: the schema (schema.ts) is built
// from them, and so are the fast validator (fast-validate.ts) and every writer that clips fields
// without loading zod (the gates, whose start-up time matters). A limit changed here changes them all.

export const EVENTS_SCHEMA_VERSION = 1;
/** Lines stay under this many bytes so concurrent O_APPEND writes never interleave. */
export const MAX_EVENT_LINE_BYTES = 3800;

export const COMPONENTS = ['proxy', 'gate', 'mcp-proxy', 'sdk', 'runner'] as const;
export const LLM_PROVIDERS = ['anthropic', 'openai', 'gemini'] as const;
/**
 * The variable each provider's key is read from, by the repetition's proxy (the real key) and by the
 * runner (the sandbox's stand-in goes by the same name).
 */
export const PROVIDER_KEY_ENV = {
  anthropic: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
  gemini: 'GEMINI_API_KEY',
} as const satisfies Readonly<Record<(typeof LLM_PROVIDERS)[number], string>>;
export const GATE_DECISIONS = ['allow', 'block', 'hold', 'redact'] as const;
export const RULE_MODES = ['enforce', 'warn', 'shadow'] as const;
/** What stops a repetition: the experiment's abort list, the runner's abort event, the report's abort record. */
export const ABORT_CONDITIONS = ['destructive_attempt', 'cost_usd_above', 'wall_clock_s_above'] as const;
export type AbortCondition = (typeof ABORT_CONDITIONS)[number];
/** What the egress proxy did with a request: forwarded, blocked by a rule, answered with a fault. */
export const EGRESS_OUTCOMES = ['forwarded', 'blocked', 'faulted', 'failed'] as const;
export type EgressOutcome = (typeof EGRESS_OUTCOMES)[number];

/** The most fault indexes a plan_loaded or warning event lists. */
export const MAX_EVENT_FAULTS = 100;

/**
 * The longest each string field may be (in UTF-16 code units, as zod's .max counts), per event type;
 * `base` holds the fields every type has. A field's limit can differ between types (a plan_loaded
 * detail is shorter than an abort's), so a writer looks its limits up by the event's type.
 */
export const EVENT_STRING_MAX = {
  base: { run_id: 100 },
  plan_loaded: { detail: 200 },
  fault_injected: { fault_id: 60, target: 300, hold_id: 100, call_id: 200, detail: 500 },
  llm_call: { endpoint: 100, model: 200 },
  tool_call: { tool: 300, server: 200, call_id: 200, input_hash: 100 },
  gate_decision: { tool: 300, rule: 200, harness: 60, server: 200, call_id: 200, input_hash: 100, reason: 500 },
  abort: { detail: 500 },
  egress_request: { host: 300, method: 20 },
  warning: { code: 60, detail: 500 },
} as const;

/** The string limits an event of this type is held to: its own and the base fields'. */
export function stringLimitsOf(type: Exclude<keyof typeof EVENT_STRING_MAX, 'base'>): Readonly<Record<string, number>> {
  return { ...EVENT_STRING_MAX.base, ...EVENT_STRING_MAX[type] };
}
