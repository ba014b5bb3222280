// The model API routes the proxy serves in origin form (the agent's base URL points here), and the
// provider each belongs to. Anything else under the LLM side is a 404 in the provider's format.
import type { ModelApi } from './usage.ts';

export type Provider = 'anthropic' | 'openai';

export interface LlmRoute {
  provider: Provider;
  /** The path without the query, as recorded in llm_call.endpoint. */
  endpoint: string;
  api: ModelApi | 'anthropic-count-tokens';
  /** count_tokens is free and generates nothing: it is forwarded but is not a model call. */
  modelCall: boolean;
}

const ROUTES: readonly LlmRoute[] = [
  { provider: 'anthropic', endpoint: '/v1/messages', api: 'anthropic-messages', modelCall: true },
  { provider: 'anthropic', endpoint: '/v1/messages/count_tokens', api: 'anthropic-count-tokens', modelCall: false },
  { provider: 'openai', endpoint: '/v1/chat/completions', api: 'openai-chat', modelCall: true },
  { provider: 'openai', endpoint: '/v1/responses', api: 'openai-responses', modelCall: true },
];

/** The route for an origin-form request (`/v1/messages?beta=true` included), or null. */
export function matchLlmRoute(method: string | undefined, url: string): LlmRoute | null {
  if (method !== 'POST') return null;
  const path = url.split('?')[0]!.replace(/\/+$/, '');
  return ROUTES.find((r) => r.endpoint === path) ?? null;
}

/** Which provider's error format to answer an unknown path in: Anthropic clients send anthropic-version. */
export function providerOfHeaders(headers: Record<string, unknown>): Provider {
  return headers['anthropic-version'] !== undefined || headers['x-api-key'] !== undefined ? 'anthropic' : 'openai';
}
