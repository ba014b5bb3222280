// Codex: the same hook JSON as Claude Code, with two differences that matter here. A
// permissionDecision "allow" without updatedInput is rejected as unsupported, so an allow prints
// nothing (preToolUseAnswer already does). apply_patch carries its patch in tool_input.command,
// which is not a shell command: it is decided as a patch, not parsed as one.
import { failClosedExit2, handleToolHook, type InputMapping } from './claude-code.ts';
import type { HarnessAdapter } from './types.ts';

function rename(input: unknown, from: string, to: string): unknown {
  if (typeof input !== 'object' || input === null || !(from in input)) return input;
  const { [from]: value, ...rest } = input as Record<string, unknown>;
  return { ...rest, [to]: value };
}

const codexInput: InputMapping = {
  toDecide: (tool, input) => (tool === 'apply_patch' ? rename(input, 'command', 'patch') : input),
  toHarness: (tool, input) => (tool === 'apply_patch' ? rename(input, 'patch', 'command') : input),
};

export const codex: HarnessAdapter = {
  name: 'codex',
  handle: (gate, payload) => handleToolHook(gate, payload, codexInput),
  failClosed: failClosedExit2,
};
