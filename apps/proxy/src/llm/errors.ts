// Errors in each provider's own format, so the agent's SDK raises its own typed error: the bodies
// and headers of a 429 and a 5xx, the proxy's own failures (bad JSON, a key that is not the
// sandbox's stand-in, dead upstream), and the error event a cut stream ends with. Injected ones
// carry the plan's canary where an error id would be. Gemini's are google.rpc.Status objects
// (`{error: {code, message, status, details}}`), here and mid-stream alike.
import { STATUS_CODES } from 'node:http';
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

/** The google.rpc.Code name Google's APIs give each HTTP status. */
const GEMINI_STATUSES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
  529: 'UNAVAILABLE',
};
const GOOGLE_RPC = 'type.googleapis.com/google.rpc.';

/** Google answers a request too large with 400 INVALID_ARGUMENT, not 413. */
const geminiCode = (status: number): number => (status === 413 ? 400 : status);

const geminiStatus = (code: number): string => GEMINI_STATUSES[code] ?? (code >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT');

function geminiError(status: number, message: string, details?: unknown[]): { error: Record<string, unknown> } {
  const code = geminiCode(status);
  return { error: { code, message, status: geminiStatus(code), ...(details ? { details } : {}) } };
}

function anthropicError(status: number): { type: string } {
  return { type: ANTHROPIC_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error') };
}

function openaiError(status: number): { type: string; code: string | null } {
  return OPENAI_TYPES[status] ?? (status >= 500 ? { type: 'server_error', code: null } : { type: 'invalid_request_error', code: null });
}

export function errorBody(provider: Provider, status: number, message: string): string {
  if (provider === 'gemini') return JSON.stringify(geminiError(status, message));
  if (provider === 'anthropic') return JSON.stringify({ type: 'error', error: { ...anthropicError(status), message } });
  const { type, code } = openaiError(status);
  return JSON.stringify({ error: { message, type, param: null, code } });
}

export function providerError(provider: Provider, status: number, message: string, headers: Record<string, string> = {}): ErrorResponse {
  const answered = provider === 'gemini' ? geminiCode(status) : status;
  return { status: answered, headers: { 'content-type': 'application/json', ...headers }, body: errorBody(provider, status, message) };
}

/**
 * A key that is not the sandbox's stand-in (keys.ts): Anthropic and OpenAI answer 401; Google answers
 * a bad key with 400 INVALID_ARGUMENT, reason API_KEY_INVALID, and a call with none with 403.
 */
export function keyRefused(provider: Provider, keySent: boolean, message: string): ErrorResponse {
  if (provider !== 'gemini') return providerError(provider, 401, message);
  if (!keySent) return providerError(provider, 403, message);
  const invalid = {
    '@type': `${GOOGLE_RPC}ErrorInfo`,
    reason: 'API_KEY_INVALID',
    domain: 'googleapis.com',
    metadata: { service: 'generativelanguage.googleapis.com' },
  };
  return { status: 400, headers: { 'content-type': 'application/json' }, body: JSON.stringify(geminiError(400, message, [invalid])) };
}

/** What the proxy says in place of a provider's error that quoted part of the real key (error-answer.ts). */
export const WITHHELD_MESSAGE = 'its message quoted part of the real API key, which stays on the host, so the proxy withheld it';

/**
 * The proxy's answer in place of a provider's error answer it withheld: the provider's own status
 * (Gemini's too, unmapped) and, when they were plain, its error type and code, so the agent's SDK
 * raises the same typed error; the message says what the provider answered, never what it wrote.
 */
export function withheldError(
  provider: Provider,
  status: number,
  identity: { type?: string; code?: string },
  headers: Record<string, string> = {},
): ErrorResponse {
  const message = `intutic proxy: the provider answered ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd() + `; ${WITHHELD_MESSAGE}.`;
  let body: unknown;
  if (provider === 'gemini') body = { error: { code: status, message, status: identity.type ?? geminiStatus(status) } };
  else if (provider === 'anthropic') body = { type: 'error', error: { type: identity.type ?? anthropicError(status).type, message } };
  else {
    const fallback = openaiError(status);
    body = { error: { message, type: identity.type ?? fallback.type, param: null, code: identity.code ?? fallback.code } };
  }
  return { status, headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

/** llm.rate_limit: a 429 as the provider sends it once its limit is hit, with Retry-After. */
export function rateLimited(provider: Provider, model: string, canary: string, retryAfterS: number): ErrorResponse {
  if (provider === 'gemini') return geminiRateLimited(model, canary, retryAfterS);
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

/** Gemini's 429 once a per-minute quota is spent: RetryInfo says when to retry (gemini-cli reads it). */
function geminiRateLimited(model: string, canary: string, retryAfterS: number): ErrorResponse {
  const message =
    `You exceeded your current quota, please check your plan and billing details. Rate limit reached for ${model}. ` +
    `Please retry in ${retryAfterS}s. (error id ${canary})`;
  const details = [
    {
      '@type': `${GOOGLE_RPC}QuotaFailure`,
      violations: [
        {
          quotaMetric: 'generativelanguage.googleapis.com/generate_content_requests',
          quotaId: 'GenerateRequestsPerMinutePerProjectPerModel',
          quotaDimensions: { model, location: 'global' },
        },
      ],
    },
    { '@type': `${GOOGLE_RPC}RetryInfo`, retryDelay: `${retryAfterS}s` },
  ];
  return {
    status: 429,
    headers: { 'content-type': 'application/json', 'retry-after': String(retryAfterS) },
    body: JSON.stringify(geminiError(429, message, details)),
  };
}

const GEMINI_SERVER_MESSAGES: Record<string, string> = {
  INTERNAL: 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
  UNAVAILABLE: 'The model is overloaded. Please try again later.',
  DEADLINE_EXCEEDED: 'Deadline expired before operation could complete.',
};

function serverErrorMessage(provider: Provider, status: number, canary: string): string {
  if (provider === 'gemini') return `${GEMINI_SERVER_MESSAGES[geminiStatus(status)] ?? GEMINI_SERVER_MESSAGES.INTERNAL!} (error id ${canary})`;
  if (provider === 'anthropic') return `${status === 529 ? 'Overloaded' : 'Internal server error'} (error id ${canary})`;
  return `The server had an error while processing your request. Sorry about that! (error id ${canary})`;
}

/** llm.upstream_5xx: the status in the provider's format. */
export function serverError(provider: Provider, status: number, canary: string): ErrorResponse {
  return providerError(provider, status, serverErrorMessage(provider, status, canary));
}

/**
 * The last event of a cut stream: the provider's mid-stream error, so the SDK raises with the canary.
 * For the Responses API it is response.failed for the response the first event opened; for Gemini a
 * chunk that is an error object.
 */
export function streamErrorEvent(api: ModelApi, status: number, canary: string, firstEvent: string | null): Buffer {
  const provider: Provider = api === 'gemini-generate' ? 'gemini' : api === 'anthropic-messages' ? 'anthropic' : 'openai';
  return streamErrorEventSaying(api, status, serverErrorMessage(provider, status, canary), firstEvent);
}

/** The proxy's event in place of a provider's mid-stream error event that quoted part of the real key (stream-guard.ts). */
export function withheldStreamEvent(api: ModelApi, status: number, firstEvent: string | null): Buffer {
  return streamErrorEventSaying(api, status, `intutic proxy: the provider's stream ended with an error; ${WITHHELD_MESSAGE}.`, firstEvent);
}

function streamErrorEventSaying(api: ModelApi, status: number, message: string, firstEvent: string | null): Buffer {
  if (api === 'gemini-generate') {
    // @google/genai raises an ApiError for a `data:` chunk holding an error object; its line ends as the stream's did.
    const end = firstEvent?.endsWith('\r\n\r\n') ? '\r\n\r\n' : '\n\n';
    return Buffer.from(`data: ${JSON.stringify(geminiError(status, message))}${end}`);
  }
  if (api === 'anthropic-messages') {
    const data = { type: 'error', error: { ...anthropicError(status), message } };
    return Buffer.from(`event: error\ndata: ${JSON.stringify(data)}\n\n`);
  }
  const error = { message, type: 'server_error', param: null, code: 'server_error' };
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
