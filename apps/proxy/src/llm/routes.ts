// The model API routes the proxy serves in origin form (the agent's base URL points here), and the
// provider each belongs to. Anything else under the LLM side is a 404 in the provider's format.
// Anthropic and OpenAI name the model and streaming in the body; Gemini names the model in the path
// (`/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse`) and streams by method.
import type { LLM_PROVIDERS } from '@intutic/events';
import type { ModelApi } from './usage.ts';

/** The providers the events contract knows (llm_call.provider). */
export type Provider = (typeof LLM_PROVIDERS)[number];

export interface LlmRoute {
  provider: Provider;
  /**
   * The path without the query, as recorded in llm_call.endpoint. Gemini's is normalised to
   * `/v1beta/models/{model}:generateContent`: stable across models (the model is llm_call.model),
   * and within the contract's length whatever model name a client sends.
   */
  endpoint: string;
  api: ModelApi | 'anthropic-count-tokens' | 'gemini-count-tokens';
  /** count_tokens / countTokens are free and generate nothing: forwarded, but not model calls. */
  modelCall: boolean;
  /** Gemini: the model named in the path and whether the method streams; null where the body says both. */
  inPath: { model: string; stream: boolean } | null;
}

const ROUTES: readonly LlmRoute[] = [
  { provider: 'anthropic', endpoint: '/v1/messages', api: 'anthropic-messages', modelCall: true, inPath: null },
  { provider: 'anthropic', endpoint: '/v1/messages/count_tokens', api: 'anthropic-count-tokens', modelCall: false, inPath: null },
  { provider: 'openai', endpoint: '/v1/chat/completions', api: 'openai-chat', modelCall: true, inPath: null },
  { provider: 'openai', endpoint: '/v1/responses', api: 'openai-responses', modelCall: true, inPath: null },
];

/** `/<version>/models/<model>:<method>`: any API version (v1, v1beta, v1alpha…), a model without / or :. */
const GEMINI_PATH = /^\/(v\d+[a-z0-9]*)\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;
/** The model segment of a Gemini path, for llm.model_degrade. */
const GEMINI_MODEL_SEGMENT = /^(\/v\d+[a-z0-9]*\/models\/)[^/:]+:/;

function geminiRoute(path: string): LlmRoute | null {
  const match = GEMINI_PATH.exec(path);
  if (!match) return null;
  const [, version = '', model = '', method = ''] = match;
  const endpoint = `/${version}/models/{model}:${method}`;
  if (method === 'countTokens') return { provider: 'gemini', endpoint, api: 'gemini-count-tokens', modelCall: false, inPath: { model, stream: false } };
  return { provider: 'gemini', endpoint, api: 'gemini-generate', modelCall: true, inPath: { model, stream: method === 'streamGenerateContent' } };
}

/** The route for an origin-form request (`/v1/messages?beta=true` included), or null. */
export function matchLlmRoute(method: string | undefined, url: string): LlmRoute | null {
  if (method !== 'POST') return null;
  const path = url.split('?')[0]!.replace(/\/+$/, '');
  return ROUTES.find((r) => r.endpoint === path) ?? geminiRoute(path);
}

/** A Gemini request's path and query with another model in the path (llm.model_degrade). */
export function withPathModel(url: string, model: string): string {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  return path.replace(GEMINI_MODEL_SEGMENT, (_all, prefix: string) => `${prefix}${encodeURIComponent(model)}:`) + (q === -1 ? '' : url.slice(q));
}

/**
 * Which provider's error format to answer an unknown path in: Anthropic clients send
 * anthropic-version, Gemini's send x-goog-api-key (or ?key=) and x-goog-api-client.
 */
export function providerOfRequest(headers: Record<string, unknown>, url: string): Provider {
  if (headers['anthropic-version'] !== undefined || headers['x-api-key'] !== undefined) return 'anthropic';
  if (headers['x-goog-api-key'] !== undefined || headers['x-goog-api-client'] !== undefined || /[?&]key=/.test(url)) return 'gemini';
  return 'openai';
}
