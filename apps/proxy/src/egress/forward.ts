// Forwarding one allowed, unfaulted request to the real upstream and streaming the answer back
// untouched (status, reason, headers, body), minus the hop-by-hop headers a proxy must not relay.
// HTTPS upstreams are verified normally: the system roots plus any extra CA the handler was given.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import { resolveUpstream, type HostOverrides, type HostPort } from './target.ts';
import { forbiddenError, type DestinationGuard } from './guard.ts';
import { endToEndHeaders } from '../headers.ts';
import { relayBody } from './relay-body.ts';

export interface Upstreams {
  overrides: HostOverrides;
  /** Decides every address dialled without an override, literal or resolved. */
  guard: DestinationGuard;
  http: HttpAgent;
  https: HttpsAgent;
  destroy(): void;
}

export function createUpstreams(overrides: HostOverrides, guard: DestinationGuard, extraCa: string[]): Upstreams {
  const http = new HttpAgent({ keepAlive: true });
  // One context for every upstream connection: parsing the system roots per handshake costs milliseconds.
  const secureContext = extraCa.length > 0 ? createSecureContext({ ca: [...rootCertificates, ...extraCa] }) : undefined;
  const https = new HttpsAgent({ keepAlive: true, ...(secureContext ? { secureContext } : {}) });
  return {
    overrides,
    guard,
    http,
    https,
    destroy() {
      http.destroy();
      https.destroy();
    },
  };
}

export type ForwardResult = { outcome: 'forwarded'; status: number } | { outcome: 'failed'; error: unknown; responded: boolean };

/**
 * Send `req` to `target` and pipe the answer into `res`. Resolves once the outcome is known: the
 * upstream's status when its headers arrive, or the error when it never answered (then nothing has
 * been written to `res` and the caller answers with a 502).
 */
export function forwardRequest(
  req: IncomingMessage,
  res: ServerResponse,
  target: HostPort,
  scheme: 'http' | 'https',
  path: string,
  upstreams: Upstreams,
): Promise<ForwardResult> {
  return new Promise((resolve) => {
    const dial = resolveUpstream(target, upstreams.overrides);
    const literal = dial.overridden ? null : upstreams.guard.refusal(target.host, dial.address);
    if (literal) {
      resolve({ outcome: 'failed', error: forbiddenError(target.host, literal), responded: false });
      return;
    }
    const headers = endToEndHeaders(req.headers);
    if (headers.host === undefined) headers.host = target.port === (scheme === 'https' ? 443 : 80) ? target.host : `${target.host}:${target.port}`;
    const options = {
      method: req.method,
      host: dial.address,
      port: dial.port,
      path,
      ...(dial.overridden ? {} : { lookup: upstreams.guard.lookup }),
      headers,
      ...(scheme === 'https' ? { agent: upstreams.https, ...(isIP(target.host) ? {} : { servername: target.host }) } : { agent: upstreams.http }),
    };
    const upstream = (scheme === 'https' ? httpsRequest : httpRequest)(options);
    let settled = false;
    const settle = (result: ForwardResult) => {
      if (!settled) {
        settled = true;
        resolve(result);
      }
    };

    upstream.on('response', (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.statusMessage, endToEndHeaders(upRes.headers));
      res.flushHeaders();
      relayBody(upRes, res);
      upRes.on('error', () => res.destroy());
      upRes.on('aborted', () => res.destroy());
      settle({ outcome: 'forwarded', status: upRes.statusCode ?? 502 });
    });
    upstream.on('error', (error) => {
      if (res.headersSent) res.destroy();
      settle({ outcome: 'failed', error, responded: res.headersSent });
    });
    // The client went away (reset mid-stream, or finished early): stop the upstream too.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.on('error', () => upstream.destroy());
    req.pipe(upstream);
  });
}
