// The one place the proxy reads the local rules: the same ~/.intutic policy the gates use (or the
// files INTUTIC_SNAPSHOT_RULES / INTUTIC_APPROVED_BYPASSES name), decided per host. Egress uses it
// for every tunnel and forwarded request; the LLM side for the upstream host of each model call.
// Both record each decision a rule took part in as the gates record theirs (policyDecisionEvent).
import { decideEgress, loadPolicy, type Policy } from '@intutic/governance';
import type { EgressPolicy } from './egress/index.ts';

export type { EgressDecision, EgressPolicy } from './egress/index.ts';
export { policyDecisionEvent } from './egress/record.ts';

export interface LocalPolicy {
  policy: EgressPolicy;
  /** Where it came from, for the log line at start. */
  summary: string;
}

export function policyFrom(policy: Policy): LocalPolicy {
  const summary = policy.missing.snapshot
    ? 'no policy snapshot: no host rules apply'
    : `${policy.rules.filter((r) => r.subject === 'host').length} host rule(s) of ${policy.rules.length} from ${policy.sources.snapshot}, ${policy.bypasses.length} approved bypass(es)`;
  return { policy: { decideEgress: (host) => decideEgress(policy, host) }, summary };
}

/** Throws E_POLICY_INVALID for a malformed file: the proxy never runs on rules it could not read. */
export function loadLocalPolicy(env: NodeJS.ProcessEnv): LocalPolicy {
  return policyFrom(loadPolicy(env));
}
