// The egress proxy's lines in the events file: fault_injected (target = host), one egress_request
// per request (per CONNECT for a plain tunnel), and a gate_decision for each request a rule took part
// in deciding. Appends are queued so they land in the order they happened; a failing disk is logged,
// never thrown into a request. No path, header or body is recorded.
import { EVENT_STRING_MAX, type EgressOutcome, type EventInput, type EventWriter } from '@intutic/events';
import type { EgressDecision } from './pipeline.ts';

/** The rule recorded for a refusal no rule names: the policy could not decide and failed closed. */
export const FAILED_CLOSED_RULE = 'proxy.failed_closed';

/**
 * A host decision as a `gate_decision` event from the proxy, so the probes count an enforce-mode rule
 * that fired here as they count one that fired in a gate (no_policy_hits: "no enforce-mode rule
 * fired", whichever component fired it). `tool` is the host decided and `harness` the side of the
 * proxy: egress (a tunnel or forwarded request) or llm (a model call's upstream). The default allow,
 * which no rule took part in, is left to egress_request and llm_call: null. A refusal whose policy
 * gives no mode was enforced (the proxy refused it), so it is recorded as enforce.
 */
export function policyDecisionEvent(side: 'egress' | 'llm', host: string, decision: EgressDecision): Extract<EventInput, { type: 'gate_decision' }> | null {
  const refused = decision.decision !== 'allow';
  if (!refused && decision.rule === null) return null;
  return {
    type: 'gate_decision',
    source: 'proxy',
    tool: host.slice(0, EVENT_STRING_MAX.gate_decision.tool),
    decision: decision.decision,
    rule: (decision.rule ?? FAILED_CLOSED_RULE).slice(0, EVENT_STRING_MAX.gate_decision.rule),
    mode: decision.mode ?? (refused ? 'enforce' : null),
    destructive: false,
    harness: side,
    reason: decision.reason.slice(0, EVENT_STRING_MAX.gate_decision.reason),
  };
}

export class EgressRecorder {
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly events: EventWriter | null,
    private readonly runId: string | undefined,
    private readonly log: (line: string) => void,
  ) {}

  private append(input: EventInput): Promise<void> {
    const events = this.events;
    if (events === null) return this.queue;
    // The queue never rejects: each append's failure is logged where it happens.
    this.queue = this.queue
      .then(() => events.append(input))
      .then(
        () => undefined,
        (error: unknown) => this.log(`egress: could not append a ${input.type} event: ${error instanceof Error ? error.message : String(error)}`),
      );
    return this.queue;
  }

  private get base() {
    return { source: 'proxy' as const, ...(this.runId === undefined ? {} : { run_id: this.runId }) };
  }

  request(host: string, method: string, outcome: EgressOutcome, status?: number): Promise<void> {
    return this.append({
      ...this.base,
      type: 'egress_request',
      host,
      method: method.slice(0, EVENT_STRING_MAX.egress_request.method),
      outcome,
      ...(status === undefined ? {} : { status }),
    });
  }

  /** What governance decided for a request to `host`, when a rule took part (see policyDecisionEvent). */
  policyDecision(host: string, decision: EgressDecision): Promise<void> {
    const event = policyDecisionEvent('egress', host, decision);
    if (event === null) return this.queue;
    return this.append({ ...event, ...this.base });
  }

  faultInjected(fault: { index: number; id: string }, host: string, detail: string): Promise<void> {
    return this.append({ ...this.base, type: 'fault_injected', fault_index: fault.index, fault_id: fault.id, target: host, detail });
  }

  /** Resolves once every queued event is on disk (or its failure logged). */
  flush(): Promise<void> {
    return this.queue;
  }
}
