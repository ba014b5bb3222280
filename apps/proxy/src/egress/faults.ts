// Which egress fault, if any, a request gets. A "call" for egress is one HTTP request to the host
// (inside an intercepted tunnel or absolute-form), never a TCP connection or a CONNECT: clients pool
// connections, so only requests count the same way for curl, npm, git and fetch.
import { countMatchingCall, emptyCounter, faultMatches, type FaultCounter, type Plan, type PlanFault } from '@intutic/faults';

export type EgressFaultId = 'egress.dns_fail' | 'egress.credential_401';

const EGRESS_FAULT_IDS: ReadonlySet<string> = new Set<EgressFaultId>(['egress.dns_fail', 'egress.credential_401']);

export interface EgressInjection {
  fault: PlanFault & { id: EgressFaultId };
  canary: string;
}

export class EgressFaults {
  private readonly faults: Array<PlanFault & { id: EgressFaultId }>;
  private readonly counters = new Map<number, FaultCounter>();
  private readonly canary: string;

  constructor(plan: Plan | null) {
    this.faults = (plan?.faults ?? []).filter((f): f is PlanFault & { id: EgressFaultId } => EGRESS_FAULT_IDS.has(f.id));
    this.canary = plan?.canary ?? '';
    for (const f of this.faults) this.counters.set(f.index, emptyCounter());
  }

  /** Indexes of the plan's faults this component injects (for plan_loaded). */
  get indexes(): number[] {
    return this.faults.map((f) => f.index);
  }

  /** Some fault names this host: its tunnels must be intercepted even before the fault is due. */
  namesHost(host: string): boolean {
    return this.faults.some((f) => faultMatches(f.match, { host }));
  }

  /**
   * Count one allowed request to `host` and say which fault answers it. Every matching fault counts the
   * call; when two are due at once the one listed first in the plan answers, and the other's injection
   * budget is left untouched since it did not reach the client.
   */
  nextCall(host: string): EgressInjection | null {
    let chosen: EgressInjection | null = null;
    for (const fault of this.faults) {
      if (!faultMatches(fault.match, { host })) continue;
      const counter = this.counters.get(fault.index)!;
      const { inject, next } = countMatchingCall(fault, counter);
      if (inject && chosen === null) {
        chosen = { fault, canary: this.canary };
        this.counters.set(fault.index, next);
      } else {
        this.counters.set(fault.index, { seen: next.seen, injected: counter.injected });
      }
    }
    return chosen;
  }
}
