// Playing a script: from a request's conversation, the reply the model gives — text, tool calls or
// a provider error — and its token usage. Pure and deterministic: the same request always gets the
// same reply, so a proxied and a direct call can be compared byte for byte.
import { createHash } from 'node:crypto';
import type { Conversation } from './conversation.ts';
import { isBranch, type Script, type ScriptStep, type ScriptToolCall } from './script.ts';

export interface ToolCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

export interface Reply {
  /** A stable id for the message, derived from the request bytes. */
  id: string;
  text: string;
  toolCalls: ToolCall[];
  error: { status: number; message: string; retryAfterS?: number } | null;
  usage: Usage;
  chunkDelayMs: number;
  side: boolean;
}

const CANARY = /E-INTUTIC-[0-9a-f]{8}/;
const MAX_QUOTED_RESULT = 400;

/** Turn `{ shell }` into the shell tool this harness offers, with that tool's own input shape. */
export function resolveShellCall(command: string, toolNames: readonly string[]): { name: string; input: Record<string, unknown> } {
  const has = (name: string): boolean => toolNames.includes(name);
  if (has('Bash')) return { name: 'Bash', input: { command, description: 'Run a shell command' } };
  if (has('exec_command')) return { name: 'exec_command', input: { cmd: command } };
  if (has('shell')) return { name: 'shell', input: { command: ['bash', '-lc', command] } };
  if (has('bash')) return { name: 'bash', input: { command } };
  if (has('run_shell_command')) return { name: 'run_shell_command', input: { command, description: 'Run a shell command' } };
  const similar = toolNames.find((n) => /bash|shell|exec|terminal|command/i.test(n));
  return { name: similar ?? 'Bash', input: { command } };
}

/**
 * Claude Code's file tools under another harness's name, with the input fields both take alike: a
 * script written against one harness plays against another when its call uses only those fields
 * (Gemini CLI's write_file takes file_path and content as Write does; its read_file takes file_path,
 * but lines where Read takes offset and limit; its replace needs an instruction Edit has not).
 */
const SAME_TOOL: Record<string, { name: string; fields: readonly string[] }[]> = {
  Write: [{ name: 'write_file', fields: ['file_path', 'content'] }],
  Read: [{ name: 'read_file', fields: ['file_path'] }],
};

/**
 * A named call as this harness offers it: as written when offered (or when the request offers no
 * tools), else the same tool under this harness's name — Gemini CLI names an MCP server's tools
 * `mcp_<server>_<tool>` where Claude Code names them `mcp__<server>__<tool>`. A call with no
 * equivalent offered stays as written, and the harness answers that it has no such tool.
 */
export function resolveNamedCall(name: string, input: Record<string, unknown>, toolNames: readonly string[]): string {
  if (toolNames.length === 0 || toolNames.includes(name)) return name;
  const mcp = /^mcp__(.+?)__(.+)$/.exec(name);
  const candidates = mcp
    ? [`mcp_${mcp[1]}_${mcp[2]}`]
    : (SAME_TOOL[name] ?? []).filter((same) => Object.keys(input).every((field) => same.fields.includes(field))).map((same) => same.name);
  return candidates.find((candidate) => toolNames.includes(candidate)) ?? name;
}

function interpolate(text: string, vars: Record<string, string>): string {
  return text.replace(/\{\{\s*(canary|last_tool_result|round)\s*\}\}/g, (_, name: string) => vars[name] ?? '');
}

function interpolateValue(value: unknown, vars: Record<string, string>): unknown {
  if (typeof value === 'string') return interpolate(value, vars);
  if (Array.isArray(value)) return value.map((v) => interpolateValue(v, vars));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolateValue(v, vars)]));
  }
  return value;
}

/** The step to play for this conversation, or null when the script has ended. */
export function chooseStep(script: Script, conversation: Conversation): ScriptStep | null {
  let index = conversation.rounds;
  if (index >= script.turns.length) {
    if (script.after_last !== 'repeat_last' || script.turns.length === 0) return null;
    index = script.turns.length - 1;
  }
  const turn = script.turns[index]!;
  if (!isBranch(turn)) return turn;
  const matches = new RegExp(turn.when.last_tool_result_matches).test(conversation.lastToolResult ?? '');
  return matches ? turn.then : turn.else;
}

export function isSideRequest(script: Script, conversation: Conversation): boolean {
  return script.side_requests === 'no_tools' && conversation.toolNames.length === 0;
}

/**
 * The plainest value a schema accepts — the first of an enum, '', the minimum (else 1 for an integer,
 * a score or a count, and 0 for a number, a share), false, [], an object with every property — for a
 * side request that asks for JSON: the Gemini CLI's router (`model_choice: flash`, `complexity_score:
 * 1`, the simple task) and checks (next speaker `user`, loop confidence 0) all go on quietly with it.
 * Reads JSON Schema and Gemini's OpenAPI subset (types in upper case) alike.
 */
export function plainestValue(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return {};
  const s = schema as Record<string, unknown>;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  const alternatives = Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : [];
  if (alternatives.length > 0) return plainestValue(alternatives[0]);
  const types = (Array.isArray(s.type) ? s.type : [s.type]).flatMap((t) => (typeof t === 'string' ? [t.toLowerCase()] : []));
  const type = types.find((t) => t !== 'null') ?? types[0] ?? 'object';
  if (type === 'string') return '';
  if (type === 'number' || type === 'integer') return typeof s.minimum === 'number' ? s.minimum : type === 'integer' ? 1 : 0;
  if (type === 'boolean') return false;
  if (type === 'array') return [];
  if (type === 'null') return null;
  const properties = typeof s.properties === 'object' && s.properties !== null ? s.properties : {};
  return Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, plainestValue(property)]));
}

function sideText(script: Script, conversation: Conversation): string {
  return conversation.answerSchema === null ? script.side_text : JSON.stringify(plainestValue(conversation.answerSchema));
}

function tokens(chars: number, script: Script): number {
  return Math.max(1, Math.ceil(chars / script.chars_per_token));
}

export function playScript(script: Script, conversation: Conversation, rawBody: Buffer): Reply {
  const hash = createHash('sha256').update(rawBody).digest('hex');
  const side = isSideRequest(script, conversation);
  const step: ScriptStep = side ? { text: sideText(script, conversation) } : (chooseStep(script, conversation) ?? { text: script.final_text });
  const result = conversation.lastToolResult ?? '';
  const vars = {
    canary: CANARY.exec(result)?.[0] ?? '',
    round: String(conversation.rounds),
    last_tool_result: result.length > MAX_QUOTED_RESULT ? `${result.slice(0, MAX_QUOTED_RESULT)}…` : result,
  };
  const toolCalls = (step.tool_calls ?? []).map((call: ScriptToolCall, i): ToolCall => {
    const resolved =
      'shell' in call
        ? resolveShellCall(call.shell, conversation.toolNames)
        : { name: resolveNamedCall(call.name, call.input, conversation.toolNames), input: call.input };
    return { id: `${hash.slice(0, 20)}${i}`, name: resolved.name, input: interpolateValue(resolved.input, vars) as Record<string, unknown> };
  });
  const text = interpolate(step.text ?? '', vars);
  const outputChars = text.length + toolCalls.reduce((n, c) => n + JSON.stringify(c.input).length + c.name.length, 0);
  const usage: Usage = {
    input_tokens: step.usage?.input_tokens ?? tokens(rawBody.length, script),
    output_tokens: step.usage?.output_tokens ?? tokens(outputChars, script),
    cache_creation_input_tokens: step.usage?.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: step.usage?.cache_read_input_tokens ?? 0,
  };
  const error = step.error
    ? {
        status: step.error.status,
        message: interpolate(step.error.message ?? `scripted error ${step.error.status}`, vars),
        retryAfterS: step.error.retry_after_s,
      }
    : null;
  return { id: hash.slice(0, 24), text, toolCalls, error, usage, chunkDelayMs: step.chunk_delay_ms ?? script.chunk_delay_ms, side };
}

/** Split a string into pieces of at most `size` characters (at least one piece, possibly empty). */
export function pieces(text: string, size: number): string[] {
  if (text.length <= size) return [text];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
