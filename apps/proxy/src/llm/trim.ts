// llm.context_trim: drop the oldest messages (and/or the system prompt) from a request before it is
// forwarded, keeping the conversation well-formed for the provider: it still starts with a user
// turn, and a tool result whose tool call was dropped becomes plain user text (the provider rejects
// a tool result that answers no call). The newest message is always kept. Gemini's history is
// `contents` (user and model turns, tool results as functionResponse parts of a user turn) and its
// system prompt is `systemInstruction`.
import type { ModelApi } from './usage.ts';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const SYSTEM_ROLES = new Set(['system', 'developer']);

export interface TrimResult {
  body: Json;
  droppedMessages: number;
  droppedSystem: boolean;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => (isObject(p) && typeof p.text === 'string' ? p.text : isObject(p) ? textOf(p.content ?? p.output) : '')).join('\n');
}

/** How many of `messages` to drop from the front: `n`, capped so the newest one stays. */
const cap = (n: number, length: number): number => Math.max(0, Math.min(n, length - 1));

const roleOf = (message: unknown): unknown => (isObject(message) ? message.role : undefined);

function trimAnthropic(body: Json, dropOldest: number): number {
  const messages: unknown[] = Array.isArray(body.messages) ? body.messages : [];
  let start = cap(dropOldest, messages.length);
  while (start < messages.length - 1 && roleOf(messages[start]) !== 'user') start++;
  const kept = messages.slice(start);
  const first = kept[0];
  if (isObject(first) && Array.isArray(first.content)) {
    // The tool_use these answered was dropped: keep what they said as text.
    const content = first.content.map((block: unknown) =>
      isObject(block) && block.type === 'tool_result' ? { type: 'text', text: `Tool result: ${textOf(block.content)}` } : block,
    );
    kept[0] = { ...first, content };
  }
  body.messages = kept;
  return start;
}

function trimChat(body: Json, dropOldest: number): number {
  const messages: unknown[] = Array.isArray(body.messages) ? body.messages : [];
  const system = messages.filter((m) => isObject(m) && SYSTEM_ROLES.has(String(m.role)));
  const rest = messages.filter((m) => !(isObject(m) && SYSTEM_ROLES.has(String(m.role))));
  let start = cap(dropOldest, rest.length);
  while (start < rest.length - 1 && roleOf(rest[start]) === 'assistant') start++;
  const kept = rest.slice(start).map((m, i, all) => {
    // Leading tool messages answer a dropped assistant turn.
    const leadingTool = all.slice(0, i + 1).every((x) => isObject(x) && x.role === 'tool');
    return leadingTool && isObject(m) ? { role: 'user', content: `Tool result: ${textOf(m.content)}` } : m;
  });
  body.messages = [...system, ...kept];
  return start;
}

/** What a Gemini functionResponse said: its `output` (gemini-cli's shape), or the whole response as JSON. */
function functionResponseText(functionResponse: Json): string {
  const response = functionResponse.response;
  if (isObject(response) && typeof response.output === 'string') return response.output;
  return JSON.stringify(response ?? {});
}

function trimGemini(body: Json, dropOldest: number): number {
  const contents: unknown[] = Array.isArray(body.contents) ? body.contents : [];
  // A turn without a role is the user's, as the API takes it.
  const isUser = (turn: unknown): boolean => isObject(turn) && (turn.role === undefined || turn.role === 'user');
  let start = cap(dropOldest, contents.length);
  while (start < contents.length - 1 && !isUser(contents[start])) start++;
  const kept = contents.slice(start);
  const first = kept[0];
  if (start > 0 && isObject(first) && Array.isArray(first.parts)) {
    // The functionCall these answered was in the dropped model turn: keep what they said as text.
    const parts = first.parts.map((part: unknown) =>
      isObject(part) && isObject(part.functionResponse) ? { text: `Tool result: ${functionResponseText(part.functionResponse)}` } : part,
    );
    kept[0] = { ...first, parts };
  }
  body.contents = kept;
  return start;
}

const OUTPUT_TYPES = new Set(['function_call_output', 'custom_tool_call_output', 'local_shell_call_output']);
const CALL_TYPES = new Set(['function_call', 'custom_tool_call', 'local_shell_call']);

function trimResponses(body: Json, dropOldest: number): number {
  if (!Array.isArray(body.input)) return 0; // a plain string input has nothing older to drop
  const input = body.input as unknown[];
  const isSystem = (item: unknown): boolean => isObject(item) && SYSTEM_ROLES.has(String(item.role));
  const system = input.filter(isSystem);
  const rest = input.filter((item) => !isSystem(item));
  let start = cap(dropOldest, rest.length);
  // Start at a user message or a tool output, never inside the model's own turn.
  const opensTurn = (item: unknown): boolean => isObject(item) && (item.role === 'user' || OUTPUT_TYPES.has(String(item.type)));
  while (start < rest.length - 1 && !opensTurn(rest[start])) start++;
  const kept = rest.slice(start);
  const calls = new Set(kept.filter((i) => isObject(i) && CALL_TYPES.has(String(i.type))).map((i) => String((i as Json).call_id)));
  body.input = [
    ...system,
    ...kept.map((item) =>
      isObject(item) && OUTPUT_TYPES.has(String(item.type)) && !calls.has(String(item.call_id))
        ? { role: 'user', content: [{ type: 'input_text', text: `Tool result: ${typeof item.output === 'string' ? item.output : textOf(item.output)}` }] }
        : item,
    ),
  ];
  return start;
}

function dropSystem(api: ModelApi, body: Json): boolean {
  if (api === 'gemini-generate') {
    // The REST API takes the proto field's JSON name and its original one alike.
    const had = body.systemInstruction !== undefined || body.system_instruction !== undefined;
    delete body.systemInstruction;
    delete body.system_instruction;
    return had;
  }
  if (api === 'anthropic-messages') {
    const had = body.system !== undefined;
    delete body.system;
    return had;
  }
  const key = api === 'openai-chat' ? 'messages' : 'input';
  let had = api === 'openai-responses' && body.instructions !== undefined;
  if (api === 'openai-responses') delete body.instructions;
  if (Array.isArray(body[key])) {
    const list = body[key] as unknown[];
    const kept = list.filter((m) => !(isObject(m) && SYSTEM_ROLES.has(String(m.role))));
    had ||= kept.length !== list.length;
    body[key] = kept;
  }
  return had;
}

/** Apply a context_trim to a parsed request body (mutated in place and returned). */
export function trimContext(api: ModelApi, body: Json, options: { dropOldest: number | null; dropSystem: boolean }): TrimResult {
  let droppedMessages = 0;
  if (options.dropOldest !== null && options.dropOldest > 0) {
    const trim = { 'anthropic-messages': trimAnthropic, 'openai-chat': trimChat, 'openai-responses': trimResponses, 'gemini-generate': trimGemini }[api];
    droppedMessages = trim(body, options.dropOldest);
  }
  const droppedSystem = options.dropSystem ? dropSystem(api, body) : false;
  return { body, droppedMessages, droppedSystem };
}
