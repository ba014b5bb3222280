// Gemini's token usage, read from a GenerateContentResponse: the JSON answer, or the chunks of a
// streamGenerateContent stream (`data: <chunk>` events with ?alt=sse, no [DONE]; a JSON array of
// them without), whose usageMetadata is cumulative so the last one counts. Cached tokens are inside promptTokenCount and are kept apart, as Anthropic
// reports them; thinking tokens (thoughtsTokenCount) are billed as output. The model served is
// modelVersion. usage.ts folds the result into the call's usage.
import type { TokenUsage } from './pricing.ts';
import { parseSseEvent, SseSplitter } from './sse.ts';

type Json = Record<string, unknown>;
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0);
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface GeminiReading {
  /** null when no usageMetadata came. */
  usage: TokenUsage | null;
  model: string | null;
  /** Characters of text and call arguments generated, for the estimate when no usage came. */
  outputChars: number;
}

/** usageMetadata as the event's tokens. Tool-use prompt tokens (server-side tools) are input too. */
export function geminiTokens(meta: Json): TokenUsage {
  const prompt = num(meta.promptTokenCount) + num(meta.toolUsePromptTokenCount);
  const cached = Math.min(num(meta.cachedContentTokenCount), prompt);
  return {
    input_tokens: prompt - cached,
    output_tokens: num(meta.candidatesTokenCount) + num(meta.thoughtsTokenCount),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
  };
}

function outputChars(response: Json): number {
  let chars = 0;
  for (const candidate of Array.isArray(response.candidates) ? response.candidates : []) {
    const content = isObject(candidate) ? candidate.content : undefined;
    const parts = isObject(content) && Array.isArray(content.parts) ? content.parts : [];
    for (const part of parts) {
      if (!isObject(part)) continue;
      if (typeof part.text === 'string') chars += part.text.length;
      if (isObject(part.functionCall)) chars += JSON.stringify(part.functionCall.args ?? {}).length;
    }
  }
  return chars;
}

/** One GenerateContentResponse: the JSON answer, or one chunk of a stream. */
export function readGeminiResponse(response: Json): GeminiReading {
  return {
    usage: isObject(response.usageMetadata) ? geminiTokens(response.usageMetadata) : null,
    model: typeof response.modelVersion === 'string' && response.modelVersion.length > 0 ? response.modelVersion : null,
    outputChars: outputChars(response),
  };
}

/** A JSON answer: one response, or (streamGenerateContent without ?alt=sse) an array of chunks. */
export function readGeminiAnswer(body: unknown): GeminiReading {
  const chunks = (Array.isArray(body) ? body : [body]).filter(isObject).map(readGeminiResponse);
  const withUsage = chunks.filter((c) => c.usage !== null).at(-1);
  return {
    usage: withUsage?.usage ?? null,
    model: withUsage?.model ?? chunks.find((c) => c.model !== null)?.model ?? null,
    outputChars: chunks.reduce((sum, c) => sum + c.outputChars, 0),
  };
}

function readChunk(raw: Buffer): GeminiReading | null {
  try {
    const parsed: unknown = JSON.parse(parseSseEvent(raw.toString('utf8')).data);
    return isObject(parsed) ? readGeminiResponse(parsed) : null;
  } catch {
    return null;
  }
}

const USAGE_METADATA = Buffer.from('"usageMetadata"');

/**
 * A stream's usage. Only the last chunk carrying usageMetadata is decoded, once the stream has
 * ended; the chunks before the first one that carries it are decoded as they come, for the model and
 * the estimate. (A quote inside a JSON string is escaped, so the key cannot be matched inside text.)
 * Chunks are only read during `push`: the chunk kept is a copy.
 */
export class GeminiStreamUsage {
  private readonly splitter = new SseSplitter();
  private last: Buffer | null = null;
  private model: string | null = null;
  private chars = 0;

  push(chunk: Buffer): void {
    for (const raw of this.splitter.push(chunk)) {
      if (raw.includes(USAGE_METADATA)) {
        this.last = Buffer.from(raw);
      } else if (this.last === null) {
        const reading = readChunk(raw);
        this.model ??= reading?.model ?? null;
        this.chars += reading?.outputChars ?? 0;
      }
    }
  }

  finish(): GeminiReading {
    const last = this.last ? readChunk(this.last) : null;
    return { usage: last?.usage ?? null, model: last?.model ?? this.model, outputChars: this.chars };
  }
}
