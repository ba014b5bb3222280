// Cursor: one hook event per kind of action. beforeShellExecution / beforeMCPExecution /
// beforeReadFile answer {"permission":"allow"|"deny","user_message","agent_message"} (beforeReadFile
// reads only permission); afterShellExecution / afterMCPExecution report the outcome and answer {}.
// Cursor cannot rewrite a call's input, so a redaction refuses the call instead of letting it run.
import { IntuticError } from '@intutic/errors';
import { checkCall, recordOutcome, type Gate } from '../engine.ts';
import { answer, responseOk, str, type HarnessAdapter, type HookAnswer } from './types.ts';

interface CursorCall {
  tool: string;
  input: unknown;
  mcp: boolean;
}

function parseMaybeJson(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? {};
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}

function callOf(event: string, p: Record<string, unknown>): CursorCall {
  if (event === 'beforeShellExecution' || event === 'afterShellExecution') return { tool: 'Shell', input: { command: str(p, 'command') ?? '' }, mcp: false };
  if (event === 'beforeReadFile') return { tool: 'Read', input: { file_path: str(p, 'file_path') ?? '' }, mcp: false };
  const name = str(p, 'tool_name');
  if (!name) throw new IntuticError('E_HOOK_INPUT_INVALID', `the ${event} input has no tool_name`);
  const input = parseMaybeJson(p.tool_input);
  const mcpName = /^MCP:([^:]+):(.+)$/.exec(name);
  if (mcpName) return { tool: `mcp__${mcpName[1]}__${mcpName[2]}`, input, mcp: true };
  return { tool: name, input, mcp: event.includes('MCP') || name.startsWith('mcp__') };
}

/**
 * A call id for an event Cursor gives none: unique enough to tell calls apart in one events file.
 * Not node:crypto's randomUUID: loading node:crypto costs a hook process ~7 ms of start-up.
 */
const localCallId = (): string => `${Date.now().toString(36)}-${process.pid.toString(36)}-${Math.random().toString(36).slice(2, 10)}`;

const permission = (allow: boolean, message?: string): string =>
  JSON.stringify(
    allow ? { permission: 'allow', ...(message ? { user_message: message } : {}) } : { permission: 'deny', user_message: message, agent_message: message },
  );

function handle(gate: Gate, payload: Record<string, unknown>): HookAnswer {
  const event = str(payload, 'hook_event_name') ?? '';
  const call = callOf(event, payload);
  const callId = str(payload, 'tool_use_id') ?? `cursor-${str(payload, 'generation_id') ?? 'call'}-${localCallId()}`;
  if (event.startsWith('before') || event === 'preToolUse') {
    const cwd = str(payload, 'cwd') ?? (Array.isArray(payload.workspace_roots) ? (payload.workspace_roots[0] as string | undefined) : undefined);
    const verdict = checkCall(gate, { ...call, callId, ...(cwd ? { cwd } : {}) });
    if (verdict.outcome === 'refuse') return answer(permission(false, verdict.message));
    if (verdict.outcome === 'redact') return answer(permission(false, `${verdict.message} Cursor cannot rewrite the call, so it was refused.`));
    return answer(
      event === 'beforeReadFile' ? JSON.stringify({ permission: 'allow' }) : permission(true, verdict.outcome === 'allow' ? verdict.warning : undefined),
    );
  }
  if (event.startsWith('after') || event === 'postToolUse' || event === 'postToolUseFailure') {
    const result = event === 'afterMCPExecution' ? parseMaybeJson(payload.result_json) : payload;
    recordOutcome(gate, { tool: call.tool, input: call.input, callId, ok: event !== 'postToolUseFailure' && responseOk(result) });
    return answer('{}');
  }
  throw new IntuticError('E_HOOK_INPUT_INVALID', `unexpected Cursor hook event ${event || '(none)'}`, {
    hints: ['`intutic connect` wires the gate to the before*/after* shell, MCP and read events only; a hooks.json that runs it for others needs fixing.'],
  });
}

export const cursor: HarnessAdapter = {
  name: 'cursor',
  handle,
  // Exit 2 denies in Cursor; the JSON says why.
  failClosed: (reason) =>
    answer(permission(false, `[Intutic Governance] BLOCKED: the intutic gate could not decide this call, so it was refused (fail closed): ${reason}`), 2),
};
