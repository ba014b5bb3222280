// Reads a request of each wire format (Anthropic, OpenAI Chat and Responses, Gemini) down to what
// the script needs: the tools offered, how many rounds of tool results the history holds (that is the
// turn to play, so the server keeps no state per conversation) and the text of the latest tool
// result. Also checks that the history is well-formed the way the real API insists (a tool result
// answers a tool call just before it).
export type Api = 'anthropic' | 'openai-chat' | 'openai-responses' | 'gemini';

/**
 * A tool the Responses API offers inside a `namespace` tool (Codex puts each MCP server's tools in
 * one, `mcp__fs`): the model calls it by the two parts, a script by the joined name.
 */
export interface NamespacedTool {
  namespace: string;
  name: string;
}

export interface Conversation {
  api: Api;
  model: string;
  stream: boolean;
  /** Names a script can call; a namespaced tool as `<namespace>__<name>` (`mcp__fs__list_directory`, as Claude Code names it). */
  toolNames: string[];
  /** OpenAI Responses only: the namespaced tools among toolNames, by that joined name. */
  namespaced: Record<string, NamespacedTool>;
  /** Rounds of tool results in the history: the index of the turn to play. */
  rounds: number;
  /** Text of the most recent round of tool results, or null before the first one. */
  lastToolResult: string | null;
  /** OpenAI chat only: the client asked for the usage chunk (stream_options.include_usage). */
  includeUsage: boolean;
  /**
   * Gemini only: the JSON schema the answer must follow (generationConfig.responseJsonSchema, asked
   * with responseMimeType application/json), or null. The Gemini CLI's router asks this way.
   */
  answerSchema: unknown;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const asArray = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Text of a content value: a string, or an array of blocks/parts with text. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  return asArray(content)
    .map((part) => {
      if (typeof part === 'string') return part;
      if (!isObject(part)) return '';
      if (typeof part.text === 'string') return part.text;
      if (part.type === 'tool_result') return contentText(part.content);
      return '';
    })
    .filter((s) => s.length > 0)
    .join('\n');
}

type ConversationBase = Omit<Conversation, 'rounds' | 'lastToolResult'>;

function base(api: Api, body: Json, toolNames: string[], namespaced: Record<string, NamespacedTool> = {}): ConversationBase {
  const streamOptions = isObject(body.stream_options) ? body.stream_options : {};
  return {
    api,
    model: typeof body.model === 'string' ? body.model : 'unknown-model',
    stream: body.stream === true,
    toolNames: [...toolNames, ...Object.keys(namespaced)],
    namespaced,
    includeUsage: streamOptions.include_usage === true,
    answerSchema: null,
  };
}

export function readAnthropic(body: Json): Conversation {
  const toolNames = asArray(body.tools).flatMap((t) => (isObject(t) && typeof t.name === 'string' ? [t.name] : []));
  let rounds = 0;
  let lastToolResult: string | null = null;
  for (const message of asArray(body.messages)) {
    if (!isObject(message) || message.role !== 'user') continue;
    const results = asArray(message.content).filter((b) => isObject(b) && b.type === 'tool_result');
    if (results.length === 0) continue;
    rounds++;
    lastToolResult = results.map((b) => contentText((b as Json).content)).join('\n');
  }
  return { ...base('anthropic', body, toolNames), rounds, lastToolResult };
}

function functionToolNames(tools: unknown): string[] {
  return asArray(tools).flatMap((t) => {
    if (!isObject(t)) return [];
    if (typeof t.name === 'string') return [t.name];
    if (isObject(t.function) && typeof t.function.name === 'string') return [t.function.name];
    return [];
  });
}

export function readChat(body: Json): Conversation {
  let rounds = 0;
  let lastToolResult: string | null = null;
  let previousRole = '';
  const current: string[] = [];
  for (const message of asArray(body.messages)) {
    if (!isObject(message)) continue;
    if (message.role === 'tool') {
      if (previousRole !== 'tool') {
        rounds++;
        current.length = 0;
      }
      current.push(contentText(message.content));
      lastToolResult = current.join('\n');
    }
    previousRole = String(message.role);
  }
  return { ...base('openai-chat', body, functionToolNames(body.tools)), rounds, lastToolResult };
}

/** The tools inside each `{ type: 'namespace', name, tools }` of a Responses request, by joined name. */
function namespacedTools(tools: unknown): Record<string, NamespacedTool> {
  const found: Record<string, NamespacedTool> = {};
  for (const tool of asArray(tools)) {
    if (!isObject(tool) || tool.type !== 'namespace' || typeof tool.name !== 'string') continue;
    for (const name of functionToolNames(tool.tools)) found[`${tool.name}__${name}`] = { namespace: tool.name, name };
  }
  return found;
}

// A call to a namespaced tool comes back in the history as a `function_call` with a `namespace`
// field beside the bare name, and its result as a plain function_call_output: no new item types.
const OUTPUT_ITEM_TYPES = new Set(['function_call_output', 'custom_tool_call_output', 'local_shell_call_output']);

export function readResponses(body: Json): Conversation {
  let rounds = 0;
  let lastToolResult: string | null = null;
  let inRound = false;
  const current: string[] = [];
  for (const item of asArray(body.input)) {
    if (!isObject(item)) continue;
    const isOutput = typeof item.type === 'string' && OUTPUT_ITEM_TYPES.has(item.type);
    // A round ends at the next thing the model says (a call or a message), not between outputs.
    if (isOutput) {
      if (!inRound) {
        rounds++;
        current.length = 0;
        inRound = true;
      }
      current.push(typeof item.output === 'string' ? item.output : contentText(item.output));
      lastToolResult = current.join('\n');
    } else if (item.type === 'function_call' || item.role === 'assistant' || item.role === 'user') {
      inRound = false;
    }
  }
  const plainTools = asArray(body.tools).filter((t) => !isObject(t) || t.type !== 'namespace');
  return { ...base('openai-responses', body, functionToolNames(plainTools), namespacedTools(body.tools)), rounds, lastToolResult };
}

const geminiParts = (content: unknown, kind: 'functionCall' | 'functionResponse'): Json[] =>
  (isObject(content) ? asArray(content.parts) : []).flatMap((part) => (isObject(part) && isObject(part[kind]) ? [part[kind]] : []));

/** A functionResponse's text: its `output` (or `error`), stringified when it is not a string. */
function functionResponseText(functionResponse: Json): string {
  const response = isObject(functionResponse.response) ? functionResponse.response : {};
  const value = 'output' in response ? response.output : 'error' in response ? response.error : response;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A Gemini request: the model and streaming come from the path (`/v1beta/models/<model>:<method>`), not the body. */
export function readGemini(body: Json, model: string, stream = false): Conversation {
  const declarations = asArray(body.tools).flatMap((tool) => (isObject(tool) ? asArray(tool.functionDeclarations) : []));
  const toolNames = declarations.flatMap((d) => (isObject(d) && typeof d.name === 'string' ? [d.name] : []));
  let rounds = 0;
  let lastToolResult: string | null = null;
  for (const content of asArray(body.contents)) {
    const results = isObject(content) && content.role !== 'model' ? geminiParts(content, 'functionResponse') : [];
    if (results.length === 0) continue;
    rounds++;
    lastToolResult = results.map(functionResponseText).join('\n');
  }
  const config = isObject(body.generationConfig) ? body.generationConfig : {};
  const answerSchema = config.responseMimeType === 'application/json' ? (config.responseJsonSchema ?? config.responseSchema ?? {}) : null;
  return { api: 'gemini', model, stream, toolNames, namespaced: {}, includeUsage: false, answerSchema, rounds, lastToolResult };
}

/** The reason the real API would answer 400 for this history, or null when it is well-formed. */
export function historyProblem(api: Api, body: Json): string | null {
  if (api === 'anthropic') return anthropicProblem(body);
  if (api === 'openai-chat') return chatProblem(body);
  if (api === 'gemini') return geminiProblem(body);
  return responsesProblem(body);
}

function anthropicProblem(body: Json): string | null {
  const messages = asArray(body.messages);
  if (messages.length === 0) return 'messages: at least one message is required';
  if (!isObject(messages[0]) || messages[0].role !== 'user') return 'messages: the first message must use the "user" role';
  let openToolUses = new Set<string>();
  for (const [i, message] of messages.entries()) {
    if (!isObject(message)) return `messages.${i}: not an object`;
    const blocks = asArray(message.content).filter(isObject);
    if (message.role === 'assistant') {
      openToolUses = new Set(blocks.filter((b) => b.type === 'tool_use').map((b) => String(b.id)));
      continue;
    }
    for (const block of blocks.filter((b) => b.type === 'tool_result')) {
      if (!openToolUses.has(String(block.tool_use_id))) {
        return `messages.${i}: unexpected tool_use_id found in tool_result blocks: ${String(block.tool_use_id)}. Each tool_result block must have a corresponding tool_use block in the previous message.`;
      }
    }
    openToolUses = new Set();
  }
  return null;
}

function chatProblem(body: Json): string | null {
  const messages = asArray(body.messages);
  if (messages.length === 0) return 'messages: [] is too short';
  const answered = new Set<string>();
  for (const [i, message] of messages.entries()) {
    if (!isObject(message)) return `messages.${i}: not an object`;
    if (message.role === 'assistant') {
      for (const call of asArray(message.tool_calls)) if (isObject(call)) answered.add(String(call.id));
    } else if (message.role === 'tool' && !answered.has(String(message.tool_call_id))) {
      return `messages.[${i}].role: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.`;
    }
  }
  return null;
}

function responsesProblem(body: Json): string | null {
  if (typeof body.input === 'string' || typeof body.previous_response_id === 'string') return null;
  const calls = new Set<string>();
  for (const item of asArray(body.input)) {
    if (!isObject(item)) continue;
    if (item.type === 'function_call' || item.type === 'custom_tool_call' || item.type === 'local_shell_call') calls.add(String(item.call_id));
    if (typeof item.type === 'string' && OUTPUT_ITEM_TYPES.has(item.type) && !calls.has(String(item.call_id))) {
      return `No tool call found for function call output with call_id ${String(item.call_id)}.`;
    }
  }
  return null;
}

// A call and its response pair up by id when both carry one (the Gemini CLI sends ids back), else by name.
const answers = (response: Json, call: Json): boolean =>
  typeof response.id === 'string' && typeof call.id === 'string' ? response.id === call.id : response.name === call.name;

function geminiProblem(body: Json): string | null {
  const contents = asArray(body.contents);
  if (contents.length === 0) return '* GenerateContentRequest.contents: contents is not specified';
  let calls: Json[] = [];
  for (const [i, content] of contents.entries()) {
    if (!isObject(content)) return `* GenerateContentRequest.contents[${i}]: not a Content object`;
    if (content.role === 'model') {
      calls = geminiParts(content, 'functionCall');
      continue;
    }
    const responses = geminiParts(content, 'functionResponse');
    if (responses.length > 0 && calls.length === 0) {
      return 'Please ensure that function response turn comes immediately after a function call turn.';
    }
    if (responses.length > 0 && responses.length !== calls.length) {
      return 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.';
    }
    const stray = responses.find((response) => !calls.some((call) => answers(response, call)));
    if (stray) return `* GenerateContentRequest.contents[${i}]: function response ${String(stray.name)} answers no function call of the turn before it.`;
    calls = [];
  }
  return null;
}
