// A hand-written fast path for the events schema: scoring a million lines spends most of its time
// here. Contract: for `raw` from JSON.parse, `isCanonicalEvent(raw)` is true only when
// chaosEventSchema accepts `raw` AND its output would equal `raw` (no unknown keys to strip). Anything
// else, valid or not, is false and goes through zod, so zod alone decides what is malformed. A
// property test checks this against zod on events pushed over every limit of the schema. Enums and
// limits come from limits.ts, as the schema's do; only the checks themselves are restated here.
import * as limits from './limits.ts';

type Obj = Record<string, unknown>;

const SOURCES = new Set<string>(limits.COMPONENTS);
const DECISIONS = new Set<string>(limits.GATE_DECISIONS);
const MODES = new Set<string>(limits.RULE_MODES);
const PROVIDERS = new Set<string>(limits.LLM_PROVIDERS);
const CONDITIONS = new Set<string>(limits.ABORT_CONDITIONS);
const OUTCOMES = new Set<string>(limits.EGRESS_OUTCOMES);
const { base, plan_loaded, fault_injected, llm_call, tool_call, gate_decision, abort, egress_request } = limits.EVENT_STRING_MAX;

// zod 4: z.number() rejects non-finite values and .int() accepts safe integers only.
const str = (v: unknown, max: number): boolean => typeof v === 'string' && v.length <= max;
const nullStr = (v: unknown, max: number): boolean => v === null || str(v, max);
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const nonNeg = (v: unknown): boolean => num(v) && v >= 0;
const int = (v: unknown): boolean => Number.isSafeInteger(v);
const nonNegInt = (v: unknown): boolean => Number.isSafeInteger(v) && (v as number) >= 0;
const bool = (v: unknown): boolean => typeof v === 'boolean';
const oneOf = (set: Set<string>, v: unknown): boolean => typeof v === 'string' && set.has(v);

// Optional fields score 0 when absent (JSON.parse never yields undefined), 1 when present and valid,
// and BAD when present and invalid, so a sum below 0 means "not canonical". Reading a missing key
// is cheap on objects of one shape, unlike looking every key up in a set.
const BAD = -1000;
const optStr = (v: unknown, max: number): number => (v === undefined ? 0 : str(v, max) ? 1 : BAD);
const optNonNeg = (v: unknown): number => (v === undefined ? 0 : nonNeg(v) ? 1 : BAD);
const optInt = (v: unknown): number => (v === undefined ? 0 : int(v) ? 1 : BAD);
const optBool = (v: unknown): number => (v === undefined ? 0 : bool(v) ? 1 : BAD);

function faultIndexes(v: unknown): boolean {
  if (!Array.isArray(v) || v.length > limits.MAX_EVENT_FAULTS) return false;
  for (const item of v) if (!nonNegInt(item)) return false;
  return true;
}

function keyCount(o: Obj): number {
  let n = 0;
  for (const _key in o) n++;
  return n;
}

/**
 * Field checks per type. Returns how many keys a canonical event of this type has (required plus
 * the optional ones present), or a negative number when a field is missing or invalid. Required
 * counts include the base keys v, ts, source and type. A key the schema has and this function does
 * not know makes the count differ, so such an event takes the (correct) zod path.
 */
function expectedKeys(o: Obj, type: string): number {
  switch (type) {
    case 'tool_call':
      if (!str(o.tool, tool_call.tool) || !(o.ok === null || bool(o.ok))) return BAD;
      return 6 + optStr(o.server, tool_call.server) + optStr(o.call_id, tool_call.call_id) + optStr(o.input_hash, tool_call.input_hash);
    case 'gate_decision':
      if (
        !str(o.tool, gate_decision.tool) ||
        !oneOf(DECISIONS, o.decision) ||
        !nullStr(o.rule, gate_decision.rule) ||
        !(o.mode === null || oneOf(MODES, o.mode)) ||
        !bool(o.destructive)
      ) {
        return BAD;
      }
      return (
        9 +
        optStr(o.harness, gate_decision.harness) +
        optStr(o.server, gate_decision.server) +
        optStr(o.call_id, gate_decision.call_id) +
        optStr(o.input_hash, gate_decision.input_hash) +
        optStr(o.reason, gate_decision.reason)
      );
    case 'llm_call':
      if (
        !oneOf(PROVIDERS, o.provider) ||
        !str(o.endpoint, llm_call.endpoint) ||
        !str(o.model, llm_call.model) ||
        !int(o.status) ||
        !bool(o.stream) ||
        !nonNegInt(o.input_tokens) ||
        !nonNegInt(o.output_tokens) ||
        !nonNegInt(o.cache_creation_input_tokens) ||
        !nonNegInt(o.cache_read_input_tokens) ||
        !nonNeg(o.cost_usd)
      ) {
        return BAD;
      }
      return 14 + optBool(o.priced_as_unknown) + optNonNeg(o.duration_ms);
    case 'fault_injected':
      if (!nonNegInt(o.fault_index) || !str(o.fault_id, fault_injected.fault_id) || !str(o.target, fault_injected.target)) return BAD;
      return (
        7 +
        optStr(o.hold_id, fault_injected.hold_id) +
        optStr(o.call_id, fault_injected.call_id) +
        optNonNeg(o.retry_after_s) +
        optStr(o.detail, fault_injected.detail)
      );
    case 'plan_loaded':
      return faultIndexes(o.faults) ? 5 + optStr(o.detail, plan_loaded.detail) : BAD;
    case 'abort':
      return oneOf(CONDITIONS, o.condition) && str(o.detail, abort.detail) ? 6 : BAD;
    case 'egress_request':
      return str(o.host, egress_request.host) && str(o.method, egress_request.method) && oneOf(OUTCOMES, o.outcome) ? 7 + optInt(o.status) : BAD;
    default:
      return BAD;
  }
}

export function isCanonicalEvent(raw: unknown): boolean {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return false;
  const o = raw as Obj;
  if (o.v !== limits.EVENTS_SCHEMA_VERSION || !nonNeg(o.ts) || !oneOf(SOURCES, o.source) || typeof o.type !== 'string') return false;
  const expected = expectedKeys(o, o.type) + optStr(o.run_id, base.run_id);
  return expected >= 0 && keyCount(o) === expected;
}
