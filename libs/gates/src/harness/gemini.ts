// Gemini CLI: BeforeTool answers {"decision":"deny","reason"} to refuse a call (the reason reaches
// the model as the tool's error) and hookSpecificOutput.tool_input to rewrite it (merged over the
// model's arguments, so a redaction that keeps every key replaces them all); AfterTool reports the
// outcome: failed when tool_response.error is set or a shell command's llmContent reports a
// non-zero exit (geminiResponseOk). Gemini CLI gives a call no id: the two halves of
// one call pair by tool and input hash, as Cursor's do. An MCP tool is named after mcp_context's
// server and tool, as the other harnesses name it (mcp__server__tool).
import { IntuticError } from '@intutic/errors';
import { checkCall, recordOutcome, type Gate, type GateCall } from '../engine.ts';
import { failClosedExit2 } from './claude-code.ts';
import { answer, responseOk, str, type HarnessAdapter, type HookAnswer } from './types.ts';

function callOf(payload: Record<string, unknown>, event: string): Omit<GateCall, 'cwd'> {
  const name = str(payload, 'tool_name');
  if (!name) throw new IntuticError('E_HOOK_INPUT_INVALID', `the ${event} input has no tool_name`);
  const input = payload.tool_input ?? {};
  const mcp = payload.mcp_context;
  if (typeof mcp === 'object' && mcp !== null) {
    const server = str(mcp as Record<string, unknown>, 'server_name');
    const tool = str(mcp as Record<string, unknown>, 'tool_name');
    if (server && tool) return { tool: `mcp__${server}__${tool}`, input, server, mcp: true };
  }
  return { tool: name, input, mcp: name.startsWith('mcp_') };
}

/**
 * What Gemini CLI's shell tool appends to its llmContent after the command's output (0.61,
 * run_shell_command): `Error: …` when the shell could not run it, `Exit Code: N` when it exited
 * non-zero, `Signal: …` when one ended it, then `Background PIDs: …` and `Process Group PGID: N`.
 * Anchored at the end, so output the command printed cannot hide the real trailer.
 */
const SHELL_TRAILER = /\n(?:Exit Code: (\d+)|Signal: [^\n]*)(?:\nSignal: [^\n]*)?(?:\nBackground PIDs: [^\n]*)?(?:\nProcess Group PGID: \d+)?\s*$/;
/** A cancelled or timed-out command: llmContent starts with one of these instead of `Output:`. */
const CANCELLED = /^Command (?:was automatically cancelled|was cancelled by user)/;

/**
 * A tool response failed when Gemini CLI set its error, when a shell command's llmContent ends
 * with a non-zero exit code, a signal or a spawn error, or when it was cancelled.
 */
export function geminiResponseOk(response: unknown): boolean {
  if (typeof response !== 'object' || response === null) return true;
  const r = response as Record<string, unknown>;
  if (r.error !== undefined && r.error !== null) return false;
  if (!responseOk(r)) return false;
  if (typeof r.llmContent !== 'string') return true;
  // 0.61 wraps a shell command's llmContent in <untrusted_context>…</untrusted_context>.
  const content = r.llmContent.replace(/^<untrusted_context>\n/, '').replace(/\n<\/untrusted_context>\s*$/, '');
  if (CANCELLED.test(content)) return false;
  const trailer = SHELL_TRAILER.exec(content);
  if (trailer !== null) return trailer[1] === '0'; // a signal, or a non-zero exit (0.61 never writes "Exit Code: 0")
  // The shell could not start the command: `Error: …` and no exit code, and no process group either
  // (a command that ran always has one, so its own output's "Error:" lines do not count).
  return !(content.startsWith('Output: ') && content.includes('\nError: ') && !/\nProcess Group PGID: \d+\s*$/.test(content));
}

function handle(gate: Gate, payload: Record<string, unknown>): HookAnswer {
  const event = str(payload, 'hook_event_name') ?? '';
  if (event === 'BeforeTool') {
    const cwd = str(payload, 'cwd');
    const verdict = checkCall(gate, { ...callOf(payload, event), ...(cwd ? { cwd } : {}) });
    if (verdict.outcome === 'refuse') return answer(JSON.stringify({ decision: 'deny', reason: verdict.message }));
    if (verdict.outcome === 'redact')
      return answer(JSON.stringify({ decision: 'allow', systemMessage: verdict.message, hookSpecificOutput: { tool_input: verdict.input } }));
    return answer(JSON.stringify(verdict.warning ? { decision: 'allow', systemMessage: verdict.warning } : {}));
  }
  if (event === 'AfterTool') {
    recordOutcome(gate, { ...callOf(payload, event), ok: geminiResponseOk(payload.tool_response) });
    return answer('{}');
  }
  throw new IntuticError('E_HOOK_INPUT_INVALID', `unexpected Gemini CLI hook event ${event || '(none)'}; the gate handles BeforeTool and AfterTool`, {
    hints: ['`intutic connect` wires the gate to those events only; a .gemini/settings.json that runs it for others needs fixing.'],
  });
}

export const gemini: HarnessAdapter = {
  name: 'gemini',
  handle,
  // Exit 2 blocks the tool in Gemini CLI too, with stderr as the reason the model reads.
  failClosed: failClosedExit2,
};
