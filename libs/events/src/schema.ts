// The events file contract: JSON Lines, append-only, one file per repetition. Every component that
// injects or observes writes here, and the probes read nothing else. Lines stay small (well under
// 4 KiB) so concurrent O_APPEND writes from the proxy, the gates and the MCP proxy never interleave.
// Secrets never enter an event.
import { z } from 'zod';

export const EVENTS_SCHEMA_VERSION = 1;
export const MAX_EVENT_LINE_BYTES = 3800;

export const componentSchema = z.enum(['proxy', 'gate', 'mcp-proxy', 'sdk', 'runner']);
export type Component = z.infer<typeof componentSchema>;

const base = {
  v: z.literal(EVENTS_SCHEMA_VERSION),
  /** Epoch milliseconds. */
  ts: z.number().finite().nonnegative(),
  source: componentSchema,
  /** The repetition's run id, when the component knows it (a plan was loaded). */
  run_id: z.string().max(100).optional(),
};

export const planLoadedEvent = z.object({
  ...base,
  type: z.literal('plan_loaded'),
  /** Indexes of the plan's faults this component can inject. */
  faults: z.array(z.number().int().nonnegative()).max(100),
  /** Which harness or server, e.g. "claude-code" for a gate, the server name for the MCP proxy. */
  detail: z.string().max(200).optional(),
});

export const faultInjectedEvent = z.object({
  ...base,
  type: z.literal('fault_injected'),
  fault_index: z.number().int().nonnegative(),
  fault_id: z.string().max(60),
  /** What was hit: a tool name, a host, a model. */
  target: z.string().max(300),
  /** Gates: the hold this injection belongs to, so retries of one hold count once. */
  hold_id: z.string().max(100).optional(),
  /** The faulted tool call, so recovered_within can leave it out. */
  call_id: z.string().max(200).optional(),
  /** llm.rate_limit: the Retry-After the 429 carried. */
  retry_after_s: z.number().nonnegative().optional(),
  detail: z.string().max(500).optional(),
});

export const llmCallEvent = z.object({
  ...base,
  type: z.literal('llm_call'),
  provider: z.enum(['anthropic', 'openai']),
  endpoint: z.string().max(100),
  model: z.string().max(200),
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
  tool: z.string().max(300),
  ok: z.boolean(),
  /** The MCP server, when the call went through the MCP proxy. */
  server: z.string().max(200).optional(),
  call_id: z.string().max(200).optional(),
  /** Stable hash of the input: identical calls (same tool, same input) share it. */
  input_hash: z.string().max(100).optional(),
});

export const decisionSchema = z.enum(['allow', 'block', 'hold', 'redact']);
export const modeSchema = z.enum(['enforce', 'warn', 'shadow']);

/**
 * A governance decision on one call. Gates, SDKs and the MCP proxy decide tool calls; the governance
 * proxy (source proxy) decides hosts: then `tool` is the host and `harness` says egress or llm, and it
 * records only decisions a rule took part in.
 */
export const gateDecisionEvent = z.object({
  ...base,
  type: z.literal('gate_decision'),
  /** The tool as the harness names it; for the governance proxy, the host it decided. */
  tool: z.string().max(300),
  decision: decisionSchema,
  /** The rule that decided, or null for the default allow. */
  rule: z.string().max(200).nullable(),
  /** The deciding rule's mode; null when no rule matched. */
  mode: modeSchema.nullable(),
  /** The built-in destructive-command tier matched this call, whether or not it was blocked. */
  destructive: z.boolean(),
  harness: z.string().max(60).optional(),
  server: z.string().max(200).optional(),
  call_id: z.string().max(200).optional(),
  input_hash: z.string().max(100).optional(),
  reason: z.string().max(500).optional(),
});

export const abortConditionSchema = z.enum(['destructive_attempt', 'cost_usd_above', 'wall_clock_s_above']);

export const abortEvent = z.object({
  ...base,
  type: z.literal('abort'),
  condition: abortConditionSchema,
  detail: z.string().max(500),
});

export const egressRequestEvent = z.object({
  ...base,
  type: z.literal('egress_request'),
  host: z.string().max(300),
  method: z.string().max(20),
  /** What the proxy did: forwarded, blocked by a rule, or answered with a fault. */
  outcome: z.enum(['forwarded', 'blocked', 'faulted', 'failed']),
  status: z.number().int().optional(),
});

/** Something a component did not do as asked and says so, e.g. a mutating fault refused outside a sandbox. */
export const warningEvent = z.object({
  ...base,
  type: z.literal('warning'),
  /** Stable, for scripts: mutating_fault_refused. */
  code: z.string().max(60),
  /** The plan's faults concerned, by index. */
  faults: z.array(z.number().int().nonnegative()).max(100).optional(),
  detail: z.string().max(500),
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
