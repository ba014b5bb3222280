// The one place the proxy asks the policy library (@intutic/governance, the same one the gates use)
// about a tools/call. A policy that cannot be loaded fails closed: every tools/call is refused with
// the reason, while everything else (initialize, resources, prompts…) still works.
import { homedir } from 'node:os';
import { decideToolCall, hashToolInput, loadPolicy, type GovernanceDecision, type Policy } from '@intutic/governance';

export interface GovernedCall extends GovernanceDecision {
  inputHash: string;
}

export interface Governor {
  decide(tool: string, input: Record<string, unknown>): GovernedCall;
}

export function createGovernor(options: { env: NodeJS.ProcessEnv; cwd: string; server: string; log: (message: string) => void }): Governor {
  let policy: Policy;
  try {
    policy = loadPolicy(options.env);
  } catch (error) {
    const reason = `the policy could not be loaded (${error instanceof Error ? error.message : String(error)}); tool calls are refused until it is fixed`;
    options.log(reason);
    return { decide: (tool, input) => ({ decision: 'block', rule: null, mode: null, destructive: false, reason, inputHash: hashToolInput(tool, input) }) };
  }
  const home = options.env.HOME || homedir();
  return {
    decide: (tool, input) => ({
      // Warn and shadow rules come back as allow: only a non-allow decision takes effect.
      ...decideToolCall(policy, { tool, input, server: options.server, harness: 'mcp', cwd: options.cwd, home }),
      inputHash: hashToolInput(tool, input),
    }),
  };
}

/** How a refused call reads to the agent: word for word what the hook gates answer (libs/gates messages.ts). */
export function refusalText(call: GovernanceDecision): string {
  const rule = call.rule ? ` (rule ${call.rule})` : '';
  if (call.decision === 'hold') return `[Intutic Governance] HELD: ${call.reason}${rule}. The call needs an approval and did not run.`;
  if (call.decision === 'redact') return `[Intutic Governance] REDACTED: ${call.reason}${rule}.`;
  return `[Intutic Governance] BLOCKED: ${call.reason}${rule}.`;
}
