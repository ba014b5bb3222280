// Errors in each provider's own format, so the agent's SDK raises its own typed error: the bodies
// and headers of a 429 and a 5xx, the proxy's own failures (bad JSON, a key that is not the
// sandbox's stand-in, dead upstream), and the error event a cut stream ends with. Injected ones
// carry the plan's canary where an error id would be.
import type { ModelApi } from './usage.ts';
import type { Provider } from './routes.ts';

export interface ErrorResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const ANTHROPIC_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};
const OPENAI_TYPES: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  404: { type: 'invalid_request_error', code: 'unknown_url' },
  413: { type: 'invalid_request_error', code: 'request_too_large' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
};

function anthropicError(status: number): { type: string } {
  return { type: ANTHROPIC_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error') };
}

function openaiError(status: number): { type: string; code: string | null } {
  return OPENAI_TYPES[status] ?? (status >= 500 ? { type: 'server_error', code: null } : { type: 'invalid_request_error', code: null });
}

export function errorBody(provider: Provider, status: number, message: string): string {
  if (provider === 'anthropic') return JSON.stringify({ type: 'error', error: { ...anthropicError(status), message } });
  const { type, code } = openaiError(status);
  return JSON.stringify({ error: { message, type, param: null, code } });
}

export function providerError(provider: Provider, status: number, message: string, headers: Record<string, string> = {}): ErrorResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: errorBody(provider, status, message) };
}

/** llm.rate_limit: a 429 as the provider sends it once its limit is hit, with Retry-After. */
export function rateLimited(provider: Provider, model: string, canary: string, retryAfterS: number): ErrorResponse {
  const message =
    provider === 'anthropic'
      ? `This request would exceed your organization's rate limit for ${model}. Please try again in ${retryAfterS} s. (error id ${canary})`
      : `Rate limit reached for ${model}. Please try again in ${retryAfterS}s. (error id ${canary})`;
  const limits: Record<string, string> =
    provider === 'anthropic'
      ? { 'anthropic-ratelimit-requests-remaining': '0' }
      : { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': `${retryAfterS}s` };
  return providerError(provider, 429, message, { 'retry-after': String(retryAfterS), ...limits });
}

function serverErrorMessage(provider: Provider, status: number, canary: string): string {
  if (provider === 'anthropic') return `${status === 529 ? 'Overloaded' : 'Internal server error'} (error id ${canary})`;
  return `The server had an error while processing your request. Sorry about that! (error id ${canary})`;
}

/** llm.upstream_5xx: the status in the provider's format. */
export function serverError(provider: Provider, status: number, canary: string): ErrorResponse {
  return providerError(provider, status, serverErrorMessage(provider, status, canary));
}

/**
 * The last event of a cut stream: the provider's mid-stream error, so the SDK raises with the canary.
 * For the Responses API it is response.failed for the response the first event opened.
 */
export function streamErrorEvent(api: ModelApi, status: number, canary: string, firstEvent: string | null): Buffer {
  if (api === 'anthropic-messages') {
    const data = { type: 'error', error: { ...anthropicError(status), message: serverErrorMessage('anthropic', status, canary) } };
    return Buffer.from(`event: error\ndata: ${JSON.stringify(data)}\n\n`);
  }
  const error = { message: serverErrorMessage('openai', status, canary), type: 'server_error', param: null, code: 'server_error' };
  if (api === 'openai-chat') return Buffer.from(`data: ${JSON.stringify({ error })}\n\n`);
  let opened: Record<string, unknown> = {};
  try {
    const data = /^data: (.*)$/m.exec(firstEvent ?? '')?.[1];
    opened = data ? ((JSON.parse(data) as { response?: Record<string, unknown> }).response ?? {}) : {};
  } catch {
    // not the response.created we expected: fall back to a bare response
  }
  const response = { ...opened, status: 'failed', error: { code: 'server_error', message: error.message }, output: [], usage: null };
  return Buffer.from(`event: response.failed\ndata: ${JSON.stringify({ type: 'response.failed', response })}\n\n`);
}
