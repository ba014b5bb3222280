// The events file contract: JSON Lines, append-only, one file per repetition. Every component that
// injects or observes writes here, and the probes read nothing else. Lines stay small (well under
// 4 KiB) so concurrent O_APPEND writes from the proxy, the gates and the MCP proxy never interleave.
// Secrets never enter an event.
// The enums and limits are plain data in limits.ts, shared with the fast validator and lean writers.
import { z } from 'zod';
import {
  ABORT_CONDITIONS,
  COMPONENTS,
  EGRESS_OUTCOMES,
  EVENT_STRING_MAX,
  EVENTS_SCHEMA_VERSION,
  GATE_DECISIONS,
  LLM_PROVIDERS,
  MAX_EVENT_FAULTS,
  RULE_MODES,
} from './limits.ts';

export const componentSchema = z.enum(COMPONENTS);
export type Component = z.infer<typeof componentSchema>;

const max = EVENT_STRING_MAX;
const faultIndexes = z.array(z.number().int().nonnegative()).max(MAX_EVENT_FAULTS);

const base = {
  v: z.literal(EVENTS_SCHEMA_VERSION),
  /** Epoch milliseconds. */
  ts: z.number().finite().nonnegative(),
  source: componentSchema,
  /** The repetition's run id, when the component knows it (a plan was loaded). */
  run_id: z.string().max(max.base.run_id).optional(),
};

export const planLoadedEvent = z.object({
  ...base,
  type: z.literal('plan_loaded'),
  /** Indexes of the plan's faults this component can inject. */
  faults: faultIndexes,
  /** Which harness or server, e.g. "claude-code" for a gate, the server name for the MCP proxy. */
  detail: z.string().max(max.plan_loaded.detail).optional(),
});

export const faultInjectedEvent = z.object({
  ...base,
  type: z.literal('fault_injected'),
  fault_index: z.number().int().nonnegative(),
  fault_id: z.string().max(max.fault_injected.fault_id),
  /** What was hit: a tool name, a host, a model. */
  target: z.string().max(max.fault_injected.target),
  /** Gates: the hold this injection belongs to, so retries of one hold count once. */
  hold_id: z.string().max(max.fault_injected.hold_id).optional(),
  /** The faulted tool call, so recovered_within can leave it out. */
  call_id: z.string().max(max.fault_injected.call_id).optional(),
  /** llm.rate_limit: the Retry-After the 429 carried. */
  retry_after_s: z.number().nonnegative().optional(),
  detail: z.string().max(max.fault_injected.detail).optional(),
});

export const llmCallEvent = z.object({
  ...base,
  type: z.literal('llm_call'),
  provider: z.enum(LLM_PROVIDERS),
  endpoint: z.string().max(max.llm_call.endpoint),
  model: z.string().max(max.llm_call.model),
  status: z.number().int(),
  stream: z.boolean(),
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  cache_creation_input_tokens: z.number().int().nonnegative(),
  cache_read_input_tokens: z.number().int().nonnegative(),
  cost_usd: z.number().finite().nonnegative(),
  /** True when the model is missing from the price table and was charged at the highest known price. */
  priced_as_unknown: z.boolean().optional(),
  duration_ms: z.number().nonnegative().optional(),
});

export const toolCallEvent = z.object({
  ...base,
  type: z.literal('tool_call'),
  /** As the harness names it; `mcp__server__tool` and the MCP proxy's `tool` are folded by the probes. */
  tool: z.string().max(max.tool_call.tool),
  /**
   * Whether the call succeeded; null when the harness's report does not say (Codex's hook gives a
   * shell command's output without its exit status): probes that need it leave such a call out.
   */
  ok: z.boolean().nullable(),
  /** The MCP server, when the call went through the MCP proxy. */
  server: z.string().max(max.tool_call.server).optional(),
  call_id: z.string().max(max.tool_call.call_id).optional(),
  /** Stable hash of the input: identical calls (same tool, same input) share it. */
  input_hash: z.string().max(max.tool_call.input_hash).optional(),
});

export const decisionSchema = z.enum(GATE_DECISIONS);
export const modeSchema = z.enum(RULE_MODES);

/**
 * A governance decision on one call. Gates, SDKs and the MCP proxy decide tool calls; the governance
 * proxy (source proxy) decides hosts: then `tool` is the host and `harness` says egress or llm, and it
 * records only decisions a rule took part in.
 */
export const gateDecisionEvent = z.object({
  ...base,
  type: z.literal('gate_decision'),
  /** The tool as the harness names it; for the governance proxy, the host it decided. */
  tool: z.string().max(max.gate_decision.tool),
  decision: decisionSchema,
  /** The rule that decided, or null for the default allow. */
  rule: z.string().max(max.gate_decision.rule).nullable(),
  /** The deciding rule's mode; null when no rule matched. */
  mode: modeSchema.nullable(),
  /** The built-in destructive-command tier matched this call, whether or not it was blocked. */
  destructive: z.boolean(),
  harness: z.string().max(max.gate_decision.harness).optional(),
  server: z.string().max(max.gate_decision.server).optional(),
  call_id: z.string().max(max.gate_decision.call_id).optional(),
  input_hash: z.string().max(max.gate_decision.input_hash).optional(),
  reason: z.string().max(max.gate_decision.reason).optional(),
});

export const abortConditionSchema = z.enum(ABORT_CONDITIONS);

export const abortEvent = z.object({
  ...base,
  type: z.literal('abort'),
  condition: abortConditionSchema,
  detail: z.string().max(max.abort.detail),
});

export const egressRequestEvent = z.object({
  ...base,
  type: z.literal('egress_request'),
  host: z.string().max(max.egress_request.host),
  method: z.string().max(max.egress_request.method),
  /** What the proxy did: forwarded, blocked by a rule, or answered with a fault. */
  outcome: z.enum(EGRESS_OUTCOMES),
  status: z.number().int().optional(),
});

/** Something a component did not do as asked and says so, e.g. a mutating fault refused outside a sandbox. */
export const warningEvent = z.object({
  ...base,
  type: z.literal('warning'),
  /** Stable, for scripts: mutating_fault_refused. */
  code: z.string().max(max.warning.code),
  /** The plan's faults concerned, by index. */
  faults: faultIndexes.optional(),
  detail: z.string().max(max.warning.detail),
});

export const chaosEventSchema = z.discriminatedUnion('type', [
  planLoadedEvent,
  faultInjectedEvent,
  llmCallEvent,
  toolCallEvent,
  gateDecisionEvent,
  abortEvent,
  egressRequestEvent,
  warningEvent,
]);

export type ChaosEvent = z.infer<typeof chaosEventSchema>;
export type ChaosEventType = ChaosEvent['type'];
export type EventOf<T extends ChaosEventType> = Extract<ChaosEvent, { type: T }>;
/** What a component passes to the writer: the writer stamps v and ts. */
export type EventInput = ChaosEvent extends infer E ? (E extends ChaosEvent ? Omit<E, 'v' | 'ts'> & { ts?: number } : never) : never;

// Every event type has its string limits in limits.ts, and limits.ts names no type the schema lacks.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const limitsCoverEveryType: Same<Exclude<keyof typeof EVENT_STRING_MAX, 'base'>, ChaosEventType> = true;
void limitsCoverEveryType;
