// OpenAI wire formats shared by both APIs (the error body) and the Chat Completions API: the JSON
// body, and the chunk stream (role chunk, content and tool_call deltas, finish chunk, the usage
// chunk when stream_options.include_usage asked for it — then every chunk carries usage: null —
// and [DONE]).
import { pieces, type Reply } from './play.ts';

const OPENAI_ERRORS: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory' },
  404: { type: 'invalid_request_error', code: 'model_not_found' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
};

export function openaiErrorBody(status: number, message: string): string {
  const { type, code } = OPENAI_ERRORS[status] ?? { type: status >= 500 ? 'server_error' : 'invalid_request_error', code: null };
  return JSON.stringify({ error: { message, type, param: null, code } });
}

function openaiUsage(reply: Reply): Record<string, unknown> {
  // OpenAI counts cached tokens inside prompt_tokens; the scripted usage keeps them apart.
  const prompt = reply.usage.input_tokens + reply.usage.cache_read_input_tokens;
  return {
    prompt_tokens: prompt,
    completion_tokens: reply.usage.output_tokens,
    total_tokens: prompt + reply.usage.output_tokens,
    prompt_tokens_details: { cached_tokens: reply.usage.cache_read_input_tokens, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

const finishReason = (reply: Reply): string => (reply.toolCalls.length > 0 ? 'tool_calls' : 'stop');

export function chatCompletion(reply: Reply, model: string, created: number): string {
  const toolCalls = reply.toolCalls.map((c) => ({ id: `call_${c.id}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.input) } }));
  return JSON.stringify({
    id: `chatcmpl-${reply.id}`,
    object: 'chat.completion',
    created,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.text.length > 0 ? reply.text : null,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: finishReason(reply),
      },
    ],
    usage: openaiUsage(reply),
    system_fingerprint: null,
  });
}

export function* chatChunks(reply: Reply, model: string, created: number, chunkChars: number, includeUsage: boolean): Generator<string> {
  const head = { id: `chatcmpl-${reply.id}`, object: 'chat.completion.chunk', created, model, system_fingerprint: null };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
    `data: ${JSON.stringify({ ...head, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...(includeUsage ? { usage: null } : {}) })}\n\n`;
  yield chunk({ role: 'assistant', content: '', refusal: null });
  if (reply.text.length > 0) for (const content of pieces(reply.text, chunkChars)) yield chunk({ content });
  for (const [index, call] of reply.toolCalls.entries()) {
    yield chunk({ tool_calls: [{ index, id: `call_${call.id}`, type: 'function', function: { name: call.name, arguments: '' } }] });
    for (const args of pieces(JSON.stringify(call.input), chunkChars)) yield chunk({ tool_calls: [{ index, function: { arguments: args } }] });
  }
  yield chunk({}, finishReason(reply));
  if (includeUsage) yield `data: ${JSON.stringify({ ...head, choices: [], usage: openaiUsage(reply) })}\n\n`;
  yield 'data: [DONE]\n\n';
}
