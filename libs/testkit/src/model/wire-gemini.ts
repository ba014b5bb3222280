// Google Gemini wire format (generativelanguage v1beta) for a scripted reply: the
// GenerateContentResponse of `:generateContent`, the chunks of `:streamGenerateContent?alt=sse`
// (`data: <chunk>` events, text in pieces, each function call whole, the last chunk with finishReason
// and usageMetadata, no [DONE]), countTokens and the API's error bodies — what @google/genai reads.
import { pieces, type Reply } from './play.ts';

export const GEMINI_ERROR_STATUSES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/** The API's error body; a retry delay travels as a google.rpc.RetryInfo detail, as a real 429 carries it. */
export function geminiErrorBody(status: number, message: string, retryAfterS?: number): string {
  const code = GEMINI_ERROR_STATUSES[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT');
  const details = retryAfterS === undefined ? [] : [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfterS}s` }];
  return JSON.stringify({ error: { code: status, message, status: code, ...(details.length > 0 ? { details } : {}) } });
}

// Gemini 3 models reject a functionCall part sent back without the signature they gave it; this is
// the value Google documents for parts a model did not sign, so the history is accepted either way.
export const SKIP_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

type Part = Record<string, unknown>;

function callParts(reply: Reply): Part[] {
  return reply.toolCalls.map((call) => ({ functionCall: { id: call.id, name: call.name, args: call.input }, thoughtSignature: SKIP_THOUGHT_SIGNATURE }));
}

function usageMetadata(reply: Reply): Record<string, number> {
  // Gemini counts cached tokens inside promptTokenCount; the scripted usage keeps them apart.
  const prompt = reply.usage.input_tokens + reply.usage.cache_read_input_tokens;
  const cached = reply.usage.cache_read_input_tokens;
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: reply.usage.output_tokens,
    totalTokenCount: prompt + reply.usage.output_tokens,
    ...(cached > 0 ? { cachedContentTokenCount: cached } : {}),
  };
}

function response(reply: Reply, model: string, parts: Part[], last: boolean): Record<string, unknown> {
  const candidate = { content: { role: 'model', parts }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 };
  return { candidates: [candidate], ...(last ? { usageMetadata: usageMetadata(reply) } : {}), modelVersion: model, responseId: reply.id };
}

export function geminiResponse(reply: Reply, model: string): string {
  const text = reply.text.length > 0 || reply.toolCalls.length === 0 ? [{ text: reply.text }] : [];
  return JSON.stringify(response(reply, model, [...text, ...callParts(reply)], true));
}

export function* geminiChunks(reply: Reply, model: string, chunkChars: number): Generator<string> {
  const chunks: Part[][] = [];
  if (reply.text.length > 0 || reply.toolCalls.length === 0) for (const text of pieces(reply.text, chunkChars)) chunks.push([{ text }]);
  for (const part of callParts(reply)) chunks.push([part]);
  // The last chunk carries the finish and the usage, as the API sends them with the last part.
  for (const [i, parts] of chunks.entries()) yield `data: ${JSON.stringify(response(reply, model, parts, i === chunks.length - 1))}\r\n\r\n`;
}

export function geminiCountTokens(totalTokens: number): string {
  return JSON.stringify({ totalTokens });
}
