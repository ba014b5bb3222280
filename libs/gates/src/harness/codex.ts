// Codex: the same hook JSON as Claude Code, with two differences that matter here. A
// permissionDecision "allow" without updatedInput is rejected as unsupported, so an allow prints
// nothing (preToolUseAnswer already does). apply_patch carries its patch in tool_input.command,
// which is not a shell command: it is decided as a patch, not parsed as one. A shell command's
// tool_response is its output alone: the outcome comes from the session rollout (codex-outcome.ts).
import { failClosedExit2, handleToolHook, type InputMapping, type OutcomeReader } from './claude-code.ts';
import { codexOutcome } from './codex-outcome.ts';
import { responseOk, str, type HarnessAdapter } from './types.ts';

function rename(input: unknown, from: string, to: string): unknown {
  if (typeof input !== 'object' || input === null || !(from in input)) return input;
  const { [from]: value, ...rest } = input as Record<string, unknown>;
  return { ...rest, [to]: value };
}

const codexInput: InputMapping = {
  toDecide: (tool, input) => (tool === 'apply_patch' ? rename(input, 'command', 'patch') : input),
  toHarness: (tool, input) => (tool === 'apply_patch' ? rename(input, 'patch', 'command') : input),
};

/** A structured response (an MCP result) says itself; a bare string says nothing of the exit status. */
const codexOutcomeOf: OutcomeReader = (payload) =>
  typeof payload.tool_response === 'string' ? codexOutcome(str(payload, 'transcript_path'), str(payload, 'tool_use_id')) : responseOk(payload.tool_response);

export const codex: HarnessAdapter = {
  name: 'codex',
  handle: (gate, payload) => handleToolHook(gate, payload, codexInput, codexOutcomeOf),
  failClosed: failClosedExit2,
};
