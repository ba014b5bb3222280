// Claude Code (and Codex, which speaks the same hook JSON): PreToolUse answers with
// hookSpecificOutput.permissionDecision; a deny's reason reaches the model as the tool result.
// PostToolUse reports a finished call (ok unless its tool_response says otherwise);
// PostToolUseFailure reports a failed one. Allow prints nothing, so the harness's own
// permission flow is untouched; a warn-mode match shows a systemMessage.
import { IntuticError } from '@intutic/errors';
import { checkCall, recordOutcome, type Gate, type Verdict } from '../engine.ts';
import { answer, responseOk, str, type HarnessAdapter, type HookAnswer } from './types.ts';

export function preToolUseAnswer(verdict: Verdict, harnessInput: (input: unknown) => unknown = (i) => i): HookAnswer {
  if (verdict.outcome === 'refuse') {
    return answer(
      JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: verdict.message } }),
    );
  }
  if (verdict.outcome === 'redact') {
    return answer(
      JSON.stringify({
        hookSpecificOutput: {
          hookEventName: 'PreToolUse',
          permissionDecision: 'allow',
          permissionDecisionReason: verdict.message,
          updatedInput: harnessInput(verdict.input),
        },
      }),
    );
  }
  return answer(verdict.warning ? JSON.stringify({ systemMessage: verdict.warning }) : '');
}

/** How a harness's tool_input maps to what governance decides on, and back (for updatedInput). */
export interface InputMapping {
  toDecide(tool: string, input: unknown): unknown;
  toHarness(tool: string, input: unknown): unknown;
}
const identity: InputMapping = { toDecide: (_, i) => i, toHarness: (_, i) => i };

/** Whether a finished call succeeded, from its PostToolUse payload; null when the payload does not say. */
export type OutcomeReader = (payload: Record<string, unknown>) => boolean | null;
const fromResponse: OutcomeReader = (payload) => responseOk(payload.tool_response);

export function handleToolHook(
  gate: Gate,
  payload: Record<string, unknown>,
  mapping: InputMapping = identity,
  outcome: OutcomeReader = fromResponse,
): HookAnswer {
  const event = str(payload, 'hook_event_name');
  const tool = str(payload, 'tool_name');
  if (!tool) throw new IntuticError('E_HOOK_INPUT_INVALID', `the ${event ?? 'hook'} input has no tool_name`);
  const callId = str(payload, 'tool_use_id');
  const input = mapping.toDecide(tool, payload.tool_input ?? {});
  const common = { tool, ...(callId ? { callId } : {}) };
  if (event === 'PreToolUse') {
    const cwd = str(payload, 'cwd');
    return preToolUseAnswer(checkCall(gate, { ...common, input, ...(cwd ? { cwd } : {}) }), (i) => mapping.toHarness(tool, i));
  }
  if (event === 'PostToolUse' || event === 'PostToolUseFailure') {
    recordOutcome(gate, { ...common, input, ok: event === 'PostToolUse' ? outcome(payload) : false });
    return answer();
  }
  throw new IntuticError(
    'E_HOOK_INPUT_INVALID',
    `unexpected hook event ${event ?? '(none)'}; the gate handles PreToolUse, PostToolUse and PostToolUseFailure`,
    {
      hints: ['`intutic connect` wires the gate to those events only; a hook settings file that runs it for others needs fixing.'],
    },
  );
}

/** Exit 2 with the reason on stderr blocks a PreToolUse in both Claude Code and Codex. */
export function failClosedExit2(reason: string): HookAnswer {
  return answer('', 2, `[Intutic Governance] BLOCKED: the intutic gate could not decide this call, so it was refused (fail closed): ${reason}\n`);
}

export const claudeCode: HarnessAdapter = {
  name: 'claude-code',
  handle: (gate, payload) => handleToolHook(gate, payload),
  failClosed: failClosedExit2,
};
