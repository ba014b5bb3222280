// Sending a model call to its upstream (the provider, or the scripted model in tests) over
// keep-alive connections (../wire/connection.ts). The proxy's own retries live here: a connection
// that fails before any response, or a 502/503/529 answer, is tried again a couple of times with a
// short backoff — real upstream trouble only; injected faults never get here.
import { ConnectionPool } from '../wire/connection.ts';
import type { Cancellation } from '../wire/cancel.ts';
import type { Exchange } from '../wire/exchange.ts';

const RETRY_STATUSES = new Set([502, 503, 529]);
const CONNECT_TIMEOUT_MS = 30_000;
/** A model may think for minutes between stream events; only a silent connection this long is dead. */
const IDLE_TIMEOUT_MS = 15 * 60_000;

export interface UpstreamCall {
  base: URL;
  /** Path and query as the client sent them, e.g. `/v1/messages?beta=true`. */
  path: string;
  headers: Record<string, string | string[] | number | undefined>;
  body: Buffer;
}

export interface UpstreamResponse {
  response: Exchange;
  attempts: number;
}

export class UpstreamUnreachable extends Error {
  constructor(
    readonly target: string,
    readonly attempts: number,
    cause: unknown,
  ) {
    super(`upstream ${target} unreachable after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
  }
}

export class Upstreams {
  private readonly pool: ConnectionPool;
  private readonly backoffMs: number;

  constructor(
    private readonly retries: number,
    options: { extraCa?: string[]; backoffMs?: number } = {},
  ) {
    this.pool = new ConnectionPool({ connectMs: CONNECT_TIMEOUT_MS, idleMs: IDLE_TIMEOUT_MS, ...(options.extraCa ? { extraCa: options.extraCa } : {}) });
    this.backoffMs = options.backoffMs ?? 250;
  }

  /** Send the call, retrying connection failures and 502/503/529 answers; rejects with UpstreamUnreachable. */
  async send(call: UpstreamCall, cancel: Cancellation): Promise<UpstreamResponse> {
    // A base URL with a path prefix (a gateway) keeps its prefix.
    const path = call.base.pathname.replace(/\/+$/, '') + call.path;
    let lastError: unknown;
    for (let attempt = 1; attempt <= this.retries + 1; attempt++) {
      if (attempt > 1) await backOff(this.backoffMs * 2 ** (attempt - 2), cancel);
      if (cancel.cancelled) break;
      try {
        const response = await this.pool.exchange(call.base, { method: 'POST', path, headers: call.headers, body: call.body }, cancel);
        if (attempt <= this.retries && RETRY_STATUSES.has(response.head.status)) {
          response.destroy();
          lastError = new Error(`status ${response.head.status}`);
          continue;
        }
        return { response, attempts: attempt };
      } catch (error) {
        lastError = error;
      }
    }
    throw new UpstreamUnreachable(call.base.origin, this.retries + 1, cancel.cancelled ? new Error('the client went away') : lastError);
  }

  destroy(): void {
    this.pool.destroy();
  }
}

/** Waits `ms` before a retry, or less when the call is cancelled meanwhile. */
function backOff(ms: number, cancel: Cancellation): Promise<void> {
  if (cancel.cancelled) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      stopWatching();
      resolve();
    };
    const timer = setTimeout(done, ms);
    const stopWatching = cancel.onCancel(done);
  });
}
