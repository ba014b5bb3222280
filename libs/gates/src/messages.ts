// What the agent reads when a gate refuses a call. Every injected refusal carries the repetition's
// canary; governance refusals (rules, the destructive tier) do not, since no fault caused them.
import type { GovernanceDecision } from '@intutic/governance';

export const withCanary = (text: string, canary: string): string => `${text} [${canary}]`;

export function toolErrorMessage(message: string, canary: string): string {
  return withCanary(`[Intutic Chaos] tool error: ${message}`, canary);
}

export function deniedMessage(tool: string, canary: string): string {
  return withCanary(`[Intutic Governance] DENIED: permission to run ${tool} was denied.`, canary);
}

export function heldMessage(tool: string, canary: string): string {
  return withCanary(
    `[Intutic Governance] HELD: this ${tool} call is waiting for an approval and did not run. The identical call may be retried later.`,
    canary,
  );
}

export function holdDeniedMessage(tool: string, canary: string): string {
  return withCanary(`[Intutic Governance] DENIED: the held ${tool} call was not approved.`, canary);
}

export function governanceMessage(d: GovernanceDecision): string {
  const rule = d.rule ? ` (rule ${d.rule})` : '';
  if (d.decision === 'hold') return `[Intutic Governance] HELD: ${d.reason}${rule}. The call needs an approval and did not run.`;
  if (d.decision === 'redact') return `[Intutic Governance] REDACTED: ${d.reason}${rule}.`;
  return `[Intutic Governance] BLOCKED: ${d.reason}${rule}.`;
}
