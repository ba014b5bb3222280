// Sending a model call to its upstream (the provider, or the scripted model in tests) over
// keep-alive connections. The proxy's own retries live here: a connection that fails before any
// response, or a 502/503/529 answer, is tried again a couple of times with a short backoff — real
// upstream trouble only; injected faults never get here.
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';

const RETRY_STATUSES = new Set([502, 503, 529]);
const CONNECT_TIMEOUT_MS = 30_000;
/** A model may think for minutes between stream events; only a silent connection this long is dead. */
const IDLE_TIMEOUT_MS = 15 * 60_000;

export interface UpstreamCall {
  base: URL;
  /** Path and query as the client sent them, e.g. `/v1/messages?beta=true`. */
  path: string;
  headers: OutgoingHttpHeaders;
  body: Buffer;
}

export interface UpstreamResponse {
  response: IncomingMessage;
  request: ClientRequest;
  attempts: number;
}

export class UpstreamUnreachable extends Error {
  constructor(
    readonly target: string,
    readonly attempts: number,
    cause: unknown,
  ) {
    super(`upstream ${target} unreachable after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

export class Upstreams {
  private readonly http = new HttpAgent({ keepAlive: true, maxSockets: Infinity });
  private readonly https = new HttpsAgent({ keepAlive: true, maxSockets: Infinity });

  constructor(private readonly retries: number, private readonly backoffMs = 250) {}

  private once(call: UpstreamCall, signal: AbortSignal): Promise<UpstreamResponse> {
    const url = new URL(call.path, call.base);
    const secure = url.protocol === 'https:';
    // A base URL with a path prefix (a gateway) keeps its prefix.
    const prefix = call.base.pathname.replace(/\/+$/, '');
    const path = prefix + call.path;
    return new Promise((resolve, reject) => {
      const send = secure ? httpsRequest : httpRequest;
      const request = send({
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || (secure ? 443 : 80),
        method: 'POST',
        path,
        headers: { ...call.headers, host: url.host, 'content-length': String(call.body.length) },
        agent: secure ? this.https : this.http,
        signal,
      });
      const connectTimer = setTimeout(() => request.destroy(new Error(`no connection within ${CONNECT_TIMEOUT_MS / 1000} s`)), CONNECT_TIMEOUT_MS);
      request.once('socket', (socket) => {
        if (!socket.connecting) clearTimeout(connectTimer);
        else socket.once('connect', () => clearTimeout(connectTimer));
        socket.setNoDelay(true);
      });
      request.setTimeout(IDLE_TIMEOUT_MS, () => request.destroy(new Error('upstream idle timeout')));
      request.once('response', (response) => {
        clearTimeout(connectTimer);
        resolve({ response, request, attempts: 1 });
      });
      request.once('error', (error) => {
        clearTimeout(connectTimer);
        reject(error);
      });
      request.end(call.body);
    });
  }

  /** Send the call, retrying connection failures and 502/503/529 answers; rejects with UpstreamUnreachable. */
  async send(call: UpstreamCall, signal: AbortSignal): Promise<UpstreamResponse> {
    let lastError: unknown;
    for (let attempt = 1; attempt <= this.retries + 1; attempt++) {
      if (attempt > 1) await sleep(this.backoffMs * 2 ** (attempt - 2), undefined, { signal }).catch(() => undefined);
      if (signal.aborted) break;
      try {
        const result = await this.once(call, signal);
        if (attempt <= this.retries && RETRY_STATUSES.has(result.response.statusCode ?? 0)) {
          result.response.resume(); // drain it so the connection can be reused
          lastError = new Error(`status ${result.response.statusCode}`);
          continue;
        }
        return { ...result, attempts: attempt };
      } catch (error) {
        lastError = error;
      }
    }
    throw new UpstreamUnreachable(call.base.origin, this.retries + 1, signal.aborted ? new Error('the client went away') : lastError);
  }

  destroy(): void {
    this.http.destroy();
    this.https.destroy();
  }
}
