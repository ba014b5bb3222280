// Anthropic Messages wire format for a scripted reply: the JSON body, or the SSE events in the order
// the real API sends them (message_start with usage, content blocks with text_delta and
// input_json_delta, message_delta with the final usage, message_stop), and the API's error bodies.
import { pieces, type Reply } from './play.ts';

export const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

export function anthropicErrorBody(status: number, message: string): string {
  const type = ANTHROPIC_ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
  return JSON.stringify({ type: 'error', error: { type, message } });
}

function contentBlocks(reply: Reply): Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [];
  if (reply.text.length > 0 || reply.toolCalls.length === 0) blocks.push({ type: 'text', text: reply.text });
  for (const call of reply.toolCalls) blocks.push({ type: 'tool_use', id: `toolu_${call.id}`, name: call.name, input: call.input });
  return blocks;
}

const stopReason = (reply: Reply): string => (reply.toolCalls.length > 0 ? 'tool_use' : 'end_turn');

export function anthropicMessage(reply: Reply, model: string): string {
  return JSON.stringify({
    id: `msg_${reply.id}`,
    type: 'message',
    role: 'assistant',
    model,
    content: contentBlocks(reply),
    stop_reason: stopReason(reply),
    stop_sequence: null,
    usage: reply.usage,
  });
}

const sse = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

export function* anthropicEvents(reply: Reply, model: string, chunkChars: number): Generator<string> {
  yield sse('message_start', {
    type: 'message_start',
    message: {
      id: `msg_${reply.id}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...reply.usage, output_tokens: 1 },
    },
  });
  yield sse('ping', { type: 'ping' });
  for (const [index, block] of contentBlocks(reply).entries()) {
    if (block.type === 'text') {
      yield sse('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const text of pieces(String(block.text), chunkChars)) {
        if (text.length > 0) yield sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
      }
    } else {
      yield sse('content_block_start', { type: 'content_block_start', index, content_block: { ...block, input: {} } });
      for (const partial_json of pieces(JSON.stringify(block.input), chunkChars)) {
        yield sse('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } });
      }
    }
    yield sse('content_block_stop', { type: 'content_block_stop', index });
  }
  yield sse('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: stopReason(reply), stop_sequence: null },
    usage: { output_tokens: reply.usage.output_tokens },
  });
  yield sse('message_stop', { type: 'message_stop' });
}

export function anthropicCountTokens(inputTokens: number): string {
  return JSON.stringify({ input_tokens: inputTokens });
}
