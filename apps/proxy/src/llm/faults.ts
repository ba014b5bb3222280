// Which llm.* faults of the plan apply to a model call. Each fault counts its own matching calls
// (after_calls, then at most `times` injections, via countMatchingCall). The mutating ones
// (context_trim, model_degrade) all apply; of the failing ones (rate_limit, upstream_5xx) only the
// first in plan order does — a later one still counts the call as seen but does not spend an
// injection on a call that never reaches it.
import { IntuticError } from '@intutic/errors';
import { countMatchingCall, emptyCounter, faultMatches, getFault, type FaultCounter, type Plan, type PlanFault } from '@intutic/faults';

export type LlmFaultAction =
  | { kind: 'rate_limit'; fault: PlanFault; retryAfterS: number }
  | { kind: 'upstream_5xx'; fault: PlanFault; status: number; cutAfterChunks: number | null }
  | { kind: 'context_trim'; fault: PlanFault; dropOldest: number | null; dropSystem: boolean }
  | { kind: 'model_degrade'; fault: PlanFault; toModel: string };

export const isFailing = (a: LlmFaultAction): a is Extract<LlmFaultAction, { kind: 'rate_limit' | 'upstream_5xx' }> =>
  a.kind === 'rate_limit' || a.kind === 'upstream_5xx';

function actionOf(fault: PlanFault): LlmFaultAction {
  const parsed = getFault(fault.id).options.safeParse(fault.options);
  if (!parsed.success) throw new IntuticError('E_PLAN_INVALID', `fault #${fault.index} (${fault.id}) has invalid options: ${parsed.error.message}`);
  const o = parsed.data;
  switch (fault.id) {
    case 'llm.rate_limit':
      return { kind: 'rate_limit', fault, retryAfterS: Number(o.retry_after_s) };
    case 'llm.upstream_5xx':
      return {
        kind: 'upstream_5xx',
        fault,
        status: Number(o.status),
        cutAfterChunks: typeof o.stream_cut_after_chunks === 'number' ? o.stream_cut_after_chunks : null,
      };
    case 'llm.context_trim':
      return { kind: 'context_trim', fault, dropOldest: typeof o.drop_oldest === 'number' ? o.drop_oldest : null, dropSystem: o.drop_system === true };
    case 'llm.model_degrade':
      return { kind: 'model_degrade', fault, toModel: String(o.to_model) };
    default:
      // The catalog validated the id (getFault above) and every llm.* fault there has a case here.
      throw new Error(`not an llm fault the proxy can inject: ${fault.id} (this is a bug in intutic: an llm.* fault of the catalog has no action)`);
  }
}

export class LlmFaults {
  private readonly entries: { action: LlmFaultAction; counter: FaultCounter }[];

  constructor(plan: Plan | null) {
    this.entries = (plan?.faults ?? [])
      .filter((f) => f.id.startsWith('llm.'))
      .sort((a, b) => a.index - b.index)
      .map((fault) => ({ action: actionOf(fault), counter: emptyCounter() }));
  }

  /** Count one model call against every llm fault matching its model; returns what to inject, in plan order. */
  actionsFor(model: string): LlmFaultAction[] {
    const actions: LlmFaultAction[] = [];
    let failing = false;
    for (const entry of this.entries) {
      if (!faultMatches(entry.action.fault.match, { model })) continue;
      if (failing && isFailing(entry.action)) {
        entry.counter = { ...entry.counter, seen: entry.counter.seen + 1 };
        continue;
      }
      const { inject, next } = countMatchingCall(entry.action.fault, entry.counter);
      entry.counter = next;
      if (!inject) continue;
      actions.push(entry.action);
      if (isFailing(entry.action)) failing = true;
    }
    return actions;
  }
}
