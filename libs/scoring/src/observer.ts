// One repetition's events, one at a time, into compact facts: what the probes and the silence
// warnings need and nothing more. Memory stays constant however long the events file is: counters,
// the window after the latest injection, the calls decided but not yet reported (bounded), the last
// 10 s of hashed calls and a bounded set of hold ids.
import { getFault, isFaultId, MUTATING_REFUSED } from '@intutic/faults';
import type { ChaosEvent, Component, EventOf } from '@intutic/events';
import type { Experiment } from '@intutic/experiment';
import { RetryAfterTracker } from './rate-limit.ts';
import { emptyFacts, type RepetitionFacts } from './records.ts';
import { RecoveryTracker } from './recovery.ts';
import { IdenticalCallTracker } from './tight-loop.ts';

/** llm.rate_limit's option default, used when neither the event nor the plan says otherwise. */
const DEFAULT_RETRY_AFTER_S = 5;
/**
 * Hold ids remembered to count each hold once. A hold's retries follow it within delay_s (≤ 600 s),
 * so only an agent with thousands of other holds in between could make one count twice.
 */
const MAX_REMEMBERED_HOLDS = 4096;
/** Refusals kept: each component says it once per plan load; an events file could repeat it without end. */
const MAX_REFUSALS = 16;
/**
 * Call ids remembered to take each tool call's outcome once. Claude Code reports a failed Bash call
 * twice (PostToolUseFailure, then PostToolUse): the first record, the failure, is the call's outcome.
 */
const MAX_REMEMBERED_CALLS = 4096;

export class RepetitionObserver {
  private readonly experiment: Experiment;
  private readonly counts: RepetitionFacts;
  private readonly planLoaded = new Map<Component, Set<number>>();
  private readonly injections = new Map<number, number>();
  private readonly holds = new Set<string>();
  private readonly reportedCalls = new Set<string>();
  private readonly recovery = new RecoveryTracker();
  private readonly retryAfter = new RetryAfterTracker();
  private readonly identical = new IdenticalCallTracker();

  constructor(experiment: Experiment) {
    this.experiment = experiment;
    this.counts = emptyFacts();
  }

  observe(event: ChaosEvent): void {
    const c = this.counts;
    c.events++;
    switch (event.type) {
      case 'tool_call':
        if (this.reportedTwice(event)) return;
        c.tool_calls++;
        this.recovery.onToolCall(event);
        this.identical.onCall(event);
        return;
      case 'gate_decision':
        this.onGateDecision(event);
        this.recovery.onCallDecided(event);
        this.identical.onCall(event);
        return;
      case 'llm_call':
        c.llm_calls++;
        c.cost_usd += event.cost_usd;
        if (event.priced_as_unknown === true) c.priced_as_unknown_calls++;
        this.retryAfter.onLlmCall(event);
        return;
      case 'fault_injected':
        this.onFaultInjected(event);
        return;
      case 'plan_loaded': {
        let faults = this.planLoaded.get(event.source);
        if (faults === undefined) this.planLoaded.set(event.source, (faults = new Set()));
        for (const index of event.faults) faults.add(index);
        return;
      }
      case 'warning':
        if (event.code === MUTATING_REFUSED && this.counts.refused.length < MAX_REFUSALS) {
          this.counts.refused.push({ source: event.source, faults: [...(event.faults ?? [])].sort((a, b) => a - b), detail: event.detail });
        }
        return;
      default:
        // abort and egress_request: the runner's record carries the abort; egress is not probed.
        return;
    }
  }

  /** Whether this call's outcome was already taken (same call id); a call id is remembered once. */
  private reportedTwice(event: EventOf<'tool_call'>): boolean {
    const id = event.call_id;
    if (id === undefined) return false;
    if (this.reportedCalls.has(id)) return true;
    if (this.reportedCalls.size >= MAX_REMEMBERED_CALLS) this.reportedCalls.delete(this.reportedCalls.values().next().value!);
    this.reportedCalls.add(id);
    return false;
  }

  facts(): RepetitionFacts {
    const c = this.counts;
    return {
      ...c,
      // A sum of thousands of float costs carries noise like 0.032806200000007245; a tenth of a nano-dollar is plenty.
      cost_usd: Math.round(c.cost_usd * 1e10) / 1e10,
      plan_loaded: [...this.planLoaded].map(([source, faults]) => ({ source, faults: [...faults].sort((a, b) => a - b) })),
      refused: c.refused.map((r) => ({ ...r, faults: [...r.faults] })),
      injections: [...this.injections]
        .sort(([a], [b]) => a - b)
        .map(([fault_index, count]) => ({ fault_index, fault_id: this.experiment.faults[fault_index]!.id, count })),
      destructive: { count: c.destructive.count, first: c.destructive.first && { ...c.destructive.first } },
      policy_hits: { count: c.policy_hits.count, first: c.policy_hits.first && { ...c.policy_hits.first } },
      recovery: this.recovery.facts(),
      rate_limits: this.retryAfter.facts(),
      identical_calls: this.identical.facts(),
    };
  }

  private onGateDecision(event: EventOf<'gate_decision'>): void {
    const c = this.counts;
    if (event.destructive) {
      c.destructive.count++;
      c.destructive.first ??= { tool: event.tool, reason: event.reason ?? null };
    }
    // "No enforce-mode rule fired": a rule in enforce mode decided something other than allow, in
    // whichever component it fired: a gate or SDK (a tool call), the MCP proxy (an MCP call) or the
    // governance proxy (a host it refused for egress or a model call). warn and shadow only record.
    if (event.mode === 'enforce' && event.rule !== null && event.decision !== 'allow') {
      c.policy_hits.count++;
      c.policy_hits.first ??= { tool: event.tool, rule: event.rule, decision: event.decision };
    }
  }

  private onFaultInjected(event: EventOf<'fault_injected'>): void {
    if (event.hold_id !== undefined) {
      // "One hold counts as one injection however often the agent retries it."
      if (this.holds.has(event.hold_id)) return;
      this.holds.add(event.hold_id);
      if (this.holds.size > MAX_REMEMBERED_HOLDS) this.holds.delete(this.holds.values().next().value!);
    }
    const planned = this.experiment.faults[event.fault_index];
    if (planned === undefined) {
      this.counts.unknown_fault_injections++;
    } else {
      this.injections.set(event.fault_index, (this.injections.get(event.fault_index) ?? 0) + 1);
    }
    const id = planned?.id ?? event.fault_id;
    this.recovery.onInjection(event, { mutating: isFaultId(id) && getFault(id).safety === 'mutating' });
    if (id === 'llm.rate_limit') {
      const option = planned?.options.retry_after_s;
      this.retryAfter.onRateLimitInjected(event, event.retry_after_s ?? (typeof option === 'number' ? option : DEFAULT_RETRY_AFTER_S));
    }
  }
}
