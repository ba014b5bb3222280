// Fault injection after an allow, as a pure step over the shared state: it never sees a call that
// governance blocked, held or redacted, so a fault can only turn an allow into a failure or a hold.
// Hold semantics follow the spec's "How a permission delay works": an identical retry (same tool,
// same input hash) is held again until delay_s has passed since the first refusal; the first retry
// after that is released (delay) or denied (hold_then_deny), and the hold is over. One hold is one
// injection: its retries neither count as matching calls nor inject again.
import { countMatchingCall, faultMatches } from '@intutic/faults/match';
import type { Plan, PlanFault } from '@intutic/faults';
import type { GateState } from './state.ts';
import { GATE_FAULTS } from './plan.ts';

export interface FaultCall {
  tool: string;
  server?: string;
  inputHash: string;
  /** An MCP tool: its tool.error belongs to the MCP proxy. */
  mcp: boolean;
}

export type FaultOutcome =
  | { kind: 'none' }
  /** tool.error: the call fails with the fault's message. */
  | { kind: 'error'; fault: PlanFault; message: string; injected: true }
  /** permission.deny_or_delay refused the call: mode deny, or the end of a hold_then_deny hold. */
  | { kind: 'deny'; fault: PlanFault; holdId?: string; injected: boolean }
  /** Held: first refusal (injected) or a retry before delay_s has passed. */
  | { kind: 'held'; fault: PlanFault; holdId: string; injected: boolean }
  /** A delay hold's retry after delay_s: let through, and the hold is over. */
  | { kind: 'released'; fault: PlanFault; holdId: string };

const holdKey = (call: FaultCall): string => `${call.tool}\u0000${call.inputHash}`;

function applies(fault: PlanFault, call: FaultCall): boolean {
  if (!GATE_FAULTS.has(fault.id)) return false;
  if (fault.id === 'tool.error' && call.mcp) return false;
  return faultMatches(fault.match, { tool: call.tool, ...(call.server !== undefined ? { server: call.server } : {}) });
}

export function applyFaults(state: GateState, plan: Plan, call: FaultCall, now: number): FaultOutcome {
  const key = holdKey(call);
  const hold = state.holds[key];
  if (hold) {
    const fault = plan.faults.find((f) => f.index === hold.fault_index)!;
    if (now - hold.first_refusal_ms < hold.delay_s * 1000) {
      hold.refusals++;
      return { kind: 'held', fault, holdId: hold.hold_id, injected: false };
    }
    delete state.holds[key];
    return hold.mode === 'delay' ? { kind: 'released', fault, holdId: hold.hold_id } : { kind: 'deny', fault, holdId: hold.hold_id, injected: false };
  }
  let chosen: PlanFault | undefined;
  for (const fault of plan.faults) {
    if (!applies(fault, call)) continue;
    const counter = state.counters[fault.index] ?? { seen: 0, injected: 0 };
    const { inject, next } = countMatchingCall(fault, counter);
    if (inject && chosen === undefined) {
      chosen = fault;
      state.counters[fault.index] = next;
    } else {
      // Counted as a matching call; only the first fault that fires injects into it.
      state.counters[fault.index] = { seen: next.seen, injected: counter.injected };
    }
  }
  if (chosen === undefined) return { kind: 'none' };
  if (chosen.id === 'tool.error') return { kind: 'error', fault: chosen, message: String(chosen.options.message ?? 'the tool call failed'), injected: true };
  const mode = (chosen.options.mode as string | undefined) ?? 'deny';
  if (mode !== 'delay' && mode !== 'hold_then_deny') return { kind: 'deny', fault: chosen, injected: true };
  state.holds_created++;
  const holdId = `${plan.run_id}:hold-${state.holds_created}`;
  state.holds[key] = {
    hold_id: holdId,
    fault_index: chosen.index,
    tool: call.tool,
    input_hash: call.inputHash,
    mode,
    delay_s: Number(chosen.options.delay_s ?? 0),
    first_refusal_ms: now,
    refusals: 1,
  };
  return { kind: 'held', fault: chosen, holdId, injected: true };
}
