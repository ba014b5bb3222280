// The shell calls a real agent made and their results, read back from the requests it sent the scripted
// model: each harness frames them in its own API's shape (Claude Code's Bash tool_use/tool_result,
// Codex's exec_command function_call/function_call_output, Gemini CLI's run_shell_command
// functionCall/functionResponse). The e2e tests that check what a command did use these.
import type { RecordedRequest } from '@intutic/testkit';

/** One shell call the agent made and its result, as the scripted model received them. */
export interface Exchange {
  command: string;
  /** The command's output, without the harness's framing. */
  output: string;
  /** The harness reported the command as succeeded. */
  ok: boolean;
}

export type ShellApi = Extract<RecordedRequest['api'], 'anthropic' | 'openai-responses' | 'gemini'>;

type Json = Record<string, unknown>;
export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : asArray(content)
        .map((part) => (isObject(part) && typeof part.text === 'string' ? part.text : ''))
        .join('\n');
const stripAnsi = (text: string): string => text.replace(/\u001b\[[0-9;]*m/g, '');

/** Claude Code: Bash tool_use blocks and the tool_result blocks that answer them (is_error on failure). */
function anthropicExchanges(body: Json): Exchange[] {
  const calls = new Map<string, string>();
  const out: Exchange[] = [];
  for (const message of asArray(body.messages)) {
    if (!isObject(message)) continue;
    for (const block of asArray(message.content)) {
      if (!isObject(block)) continue;
      if (block.type === 'tool_use' && block.name === 'Bash' && isObject(block.input)) calls.set(String(block.id), String(block.input.command));
      if (block.type === 'tool_result' && calls.has(String(block.tool_use_id))) {
        out.push({ command: calls.get(String(block.tool_use_id))!, output: stripAnsi(textOf(block.content)), ok: block.is_error !== true });
      }
    }
  }
  return out;
}

/** Codex: exec_command function calls and their outputs ("Process exited with code N … Output:\n<output>"). */
function responsesExchanges(body: Json): Exchange[] {
  const calls = new Map<string, string>();
  const out: Exchange[] = [];
  for (const item of asArray(body.input)) {
    if (!isObject(item)) continue;
    if (item.type === 'function_call' && item.name === 'exec_command')
      calls.set(String(item.call_id), String((JSON.parse(String(item.arguments)) as { cmd: unknown }).cmd));
    if (item.type === 'function_call_output' && calls.has(String(item.call_id))) {
      const framed = stripAnsi(textOf(item.output));
      const at = framed.indexOf('Output:\n');
      out.push({
        command: calls.get(String(item.call_id))!,
        output: at < 0 ? framed : framed.slice(at + 'Output:\n'.length),
        ok: /Process exited with code 0\b/.test(framed),
      });
    }
  }
  return out;
}

/** Gemini CLI's shell trailer after the output (0.61): `Exit Code: N` only when non-zero, then the process group. */
const GEMINI_TRAILER = /\n(?:Exit Code: (\d+)\n)?(?:Signal: [^\n]*\n)?(?:Background PIDs: [^\n]*\n)?Process Group PGID: \d+\s*$/;

/**
 * Gemini CLI: run_shell_command functionCalls and the functionResponses that answer them, in order
 * (Gemini gives them no ids). The response's output is `Output: <output>` and the trailer, inside
 * <untrusted_context> in 0.61.
 */
function geminiExchanges(body: Json): Exchange[] {
  const pending: string[] = [];
  const out: Exchange[] = [];
  for (const content of asArray(body.contents)) {
    for (const part of isObject(content) ? asArray(content.parts) : []) {
      if (!isObject(part)) continue;
      const call = part.functionCall;
      if (isObject(call) && call.name === 'run_shell_command' && isObject(call.args)) pending.push(String(call.args.command));
      const result = part.functionResponse;
      if (isObject(result) && result.name === 'run_shell_command' && pending.length > 0) {
        const response = isObject(result.response) ? result.response : {};
        const framed = stripAnsi(textOf(response.output ?? response.error ?? ''))
          .replace(/^<untrusted_context>\n/, '')
          .replace(/\n<\/untrusted_context>\s*$/, '');
        const trailer = GEMINI_TRAILER.exec(framed);
        const output = (trailer ? framed.slice(0, trailer.index) : framed).replace(/^Output: /, '');
        out.push({ command: pending.shift()!, output, ok: trailer !== null && trailer[1] === undefined && response.error === undefined });
      }
    }
  }
  return out;
}

/** The shell calls and results one request to the model carries, in the order they happened. */
export function shellExchanges(api: ShellApi, body: Json): Exchange[] {
  if (api === 'anthropic') return anthropicExchanges(body);
  return api === 'gemini' ? geminiExchanges(body) : responsesExchanges(body);
}
