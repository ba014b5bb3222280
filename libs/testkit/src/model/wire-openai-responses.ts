// OpenAI Responses wire format for a scripted reply: the response object, or its SSE events
// (response.created, response.in_progress, output_item.added/done around text and function_call
// items with their deltas, response.completed with usage) — what Codex's client reads. A call to a
// tool the request offers inside a namespace goes out in two parts, `namespace` and `name`.
import type { NamespacedTool } from './conversation.ts';
import { pieces, type Reply, type ToolCall } from './play.ts';

type Item = Record<string, unknown>;

type Namespaced = Record<string, NamespacedTool>;

function callItem(call: ToolCall, namespaced: Namespaced): Item {
  const tool = namespaced[call.name];
  const name = tool ? { namespace: tool.namespace, name: tool.name } : { name: call.name };
  return { id: `fc_${call.id}`, type: 'function_call', status: 'completed', ...name, call_id: `call_${call.id}`, arguments: JSON.stringify(call.input) };
}

function outputItems(reply: Reply, namespaced: Namespaced): Item[] {
  const items: Item[] = [];
  if (reply.text.length > 0 || reply.toolCalls.length === 0) {
    items.push({
      id: `msg_${reply.id}`,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: reply.text, annotations: [], logprobs: [] }],
    });
  }
  for (const call of reply.toolCalls) items.push(callItem(call, namespaced));
  return items;
}

function usage(reply: Reply): Item {
  const input = reply.usage.input_tokens + reply.usage.cache_read_input_tokens;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: reply.usage.cache_read_input_tokens },
    output_tokens: reply.usage.output_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + reply.usage.output_tokens,
  };
}

function responseObject(reply: Reply, model: string, created: number, status: string, output: Item[], withUsage: boolean): Item {
  return {
    id: `resp_${reply.id}`,
    object: 'response',
    created_at: created,
    status,
    error: null,
    incomplete_details: null,
    model,
    output,
    parallel_tool_calls: true,
    tool_choice: 'auto',
    tools: [],
    usage: withUsage ? usage(reply) : null,
  };
}

export function responsesBody(reply: Reply, model: string, created: number, namespaced: Namespaced = {}): string {
  return JSON.stringify(responseObject(reply, model, created, 'completed', outputItems(reply, namespaced), true));
}

export function* responsesEvents(reply: Reply, model: string, created: number, chunkChars: number, namespaced: Namespaced = {}): Generator<string> {
  let sequence = 0;
  const event = (type: string, data: Item): string => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`;
  yield event('response.created', { response: responseObject(reply, model, created, 'in_progress', [], false) });
  yield event('response.in_progress', { response: responseObject(reply, model, created, 'in_progress', [], false) });
  const items = outputItems(reply, namespaced);
  for (const [output_index, item] of items.entries()) {
    const item_id = String(item.id);
    if (item.type === 'message') {
      const text = String((item.content as Item[])[0]!.text);
      yield event('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
      const part = { type: 'output_text', text: '', annotations: [], logprobs: [] };
      yield event('response.content_part.added', { item_id, output_index, content_index: 0, part });
      for (const delta of pieces(text, chunkChars)) {
        if (delta.length > 0) yield event('response.output_text.delta', { item_id, output_index, content_index: 0, delta, logprobs: [] });
      }
      yield event('response.output_text.done', { item_id, output_index, content_index: 0, text, logprobs: [] });
      yield event('response.content_part.done', { item_id, output_index, content_index: 0, part: { ...part, text } });
    } else {
      yield event('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } });
      for (const delta of pieces(String(item.arguments), chunkChars)) yield event('response.function_call_arguments.delta', { item_id, output_index, delta });
      yield event('response.function_call_arguments.done', { item_id, output_index, arguments: item.arguments });
    }
    yield event('response.output_item.done', { output_index, item });
  }
  yield event('response.completed', { response: responseObject(reply, model, created, 'completed', items, true) });
}
