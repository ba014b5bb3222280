// The egress proxy the sandbox's HTTP(S)_PROXY points at, mounted on the server's 'connect' and
// absolute-form requests. Hosts that no fault and no rule names get a plain TCP tunnel; the others are
// intercepted with a per-run CA so the proxy can refuse (governance) or fail (egress.* faults) inside.
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { dirname } from 'node:path';
import type { Duplex } from 'node:stream';
import type { EventWriter } from '@intutic/events';
import type { Plan } from '@intutic/faults';
import { createCertificateAuthority } from './ca.ts';
import { EgressFaults } from './faults.ts';
import { createUpstreams } from './forward.ts';
import { createDestinationGuard, parseAllowances, type Resolver } from './guard.ts';
import { policyDecider, sendShaped, serveEgressRequest, type EgressPolicy, type PipelineDeps } from './pipeline.ts';
import { EgressRecorder } from './record.ts';
import { upstreamFailedResponse, type ShapedResponse } from './responses.ts';
import { normalizeOverrides, parseAbsoluteUrl, parseConnectTarget, type HostPort } from './target.ts';
import { openInterceptedTunnel, openPlainTunnel, refuseConnect } from './tunnel.ts';

export type { EgressDecision, EgressPolicy } from './pipeline.ts';

export interface EgressOptions {
  /** From @intutic/faults; null = baseline (no faults). */
  plan: Plan | null;
  events: EventWriter | null;
  policy?: EgressPolicy;
  /** host (or host:port) -> "addr:port", like curl --resolve: matching still sees the host name. */
  hostOverrides: Record<string, string>;
  /** Write the per-run CA certificate (PEM) here for the sandbox to trust. */
  caOutPath?: string;
  /** Extra CA certificates (PEM) trusted for upstreams, on top of the system roots (tests' own CAs). */
  upstreamCa?: string | string[];
  /** Private destinations let through: host names, `*.domain`, addresses, CIDRs (see guard.ts). */
  allowPrivateHosts?: readonly string[];
  /** How names resolve for the guard and the dial: dns.lookup unless a test says otherwise. */
  resolve?: Resolver;
  log: (line: string) => void;
}

export interface EgressHandler {
  /** For http.Server's 'connect' event. */
  handleConnect(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** For an absolute-form request (`GET http://host/path`): plain HTTP proxying. */
  handleForwardRequest(req: IncomingMessage, res: ServerResponse): void;
  caCertPem: string;
  /** Tear down every open tunnel and upstream connection, and flush the events. */
  close(): Promise<void>;
}

function badRequest(message: string): ShapedResponse {
  return { status: 400, reason: 'Bad Request', headers: { 'content-type': 'text/plain; charset=utf-8' }, body: `${message}\n` };
}

export async function createEgressHandler(opts: EgressOptions): Promise<EgressHandler> {
  const log = opts.log;
  const overrides = normalizeOverrides(opts.hostOverrides);
  const allowPrivate = opts.allowPrivateHosts ?? [];
  const guard = createDestinationGuard({ allow: parseAllowances(allowPrivate), ...(opts.resolve ? { resolve: opts.resolve } : {}) });
  if (allowPrivate.length > 0) log(`egress: private destinations allowed: ${allowPrivate.join(', ')}`);
  const ca = await createCertificateAuthority();
  if (opts.caOutPath !== undefined) {
    await mkdir(dirname(opts.caOutPath), { recursive: true });
    await writeFile(opts.caOutPath, ca.caCertPem, { mode: 0o644 });
  }
  const extraCa = opts.upstreamCa === undefined ? [] : [opts.upstreamCa].flat();
  const faults = new EgressFaults(opts.plan);
  const deps: PipelineDeps = {
    decide: policyDecider(opts.policy, log),
    faults,
    upstreams: createUpstreams(overrides, guard, extraCa),
    recorder: new EgressRecorder(opts.events, opts.plan?.run_id, log),
    log,
  };

  // Every connection we hold, so close() leaves nothing open.
  const live = new Set<Duplex>();
  const track = (socket: Duplex) => {
    live.add(socket);
    socket.once('close', () => live.delete(socket));
  };

  // Decrypted tunnel connections are fed to this server, which never listens itself.
  const tunnels = new WeakMap<object, { target: HostPort; scheme: 'http' | 'https'; requests: number }>();
  const inner = createServer({ requestTimeout: 0 }, (req, res) => {
    const tunnel = tunnels.get(req.socket);
    if (tunnel === undefined) {
      sendShaped(req, res, badRequest('not a tunnel'));
      return;
    }
    tunnel.requests += 1;
    serve(req, res, tunnel.target, tunnel.scheme, req.url ?? '/');
  });
  inner.on('clientError', (_error, socket: Duplex) => socket.destroy());

  function serve(req: IncomingMessage, res: ServerResponse, target: HostPort, scheme: 'http' | 'https', path: string): void {
    serveEgressRequest(req, res, target, scheme, path, deps).catch((error: unknown) => {
      log(`egress: internal error on ${req.method ?? '?'} ${target.host}: ${error instanceof Error ? error.message : String(error)}`);
      sendShaped(req, res, upstreamFailedResponse(target.host, target.port, 'generic', error));
    });
  }

  function handleConnect(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    track(socket);
    socket.on('error', () => socket.destroy());
    const target = parseConnectTarget(req.url);
    if (target === null) {
      log(`egress: refused a malformed CONNECT target ${JSON.stringify(String(req.url).slice(0, 100))}`);
      refuseConnect(socket, badRequest('CONNECT needs host:port'));
      return;
    }
    const decision = deps.decide(target.host);
    const intercept = decision.decision !== 'allow' || decision.rule !== null || faults.namesHost(target.host);
    if (!intercept) {
      openPlainTunnel(socket, head, target, deps.upstreams, {
        connected: () => void deps.recorder.request(target.host, 'CONNECT', 'forwarded', 200),
        failed: (error) => {
          const shaped = upstreamFailedResponse(target.host, target.port, 'generic', error);
          log(`egress: CONNECT ${target.host}:${target.port} failed: ${error instanceof Error ? error.message : String(error)}`);
          void deps.recorder.request(target.host, 'CONNECT', 'failed', shaped.status);
          return shaped;
        },
      });
      return;
    }
    log(`egress: intercepting CONNECT ${target.host}:${target.port}`);
    const tunnel = { target, scheme: 'https' as 'http' | 'https', requests: 0 };
    if (decision.decision !== 'allow') {
      // Each request inside is refused and recorded; a client that hangs up before any (it does not
      // trust the per-run CA, say) still tried a refused host, and the rule that refused it fired.
      socket.once('close', () => {
        if (tunnel.requests > 0) return;
        void deps.recorder.policyDecision(target.host, decision);
        void deps.recorder.request(target.host, 'CONNECT', 'blocked');
      });
    }
    openInterceptedTunnel(socket, head, target, {
      contextFor: (host) => ca.contextFor(host),
      serve: (connection, t, scheme) => {
        tunnel.target = t;
        tunnel.scheme = scheme;
        tunnels.set(connection, tunnel);
        track(connection);
        // A client that rejects our certificate just hangs up (Node sends no alert): say what it may mean.
        connection.once('close', () => {
          if (tunnel.requests === 0 && scheme === 'https')
            log(`egress: the client closed its intercepted connection to ${t.host} before any request (does it trust the per-run CA?)`);
        });
        inner.emit('connection', connection);
      },
      onTlsError: (error) => log(`egress: TLS with the client for ${target.host} failed (does it trust the per-run CA?): ${error.message}`),
    });
  }

  function handleForwardRequest(req: IncomingMessage, res: ServerResponse): void {
    const parsed = parseAbsoluteUrl(req.url);
    if (parsed === null || parsed.protocol !== 'http:') {
      sendShaped(req, res, badRequest('the egress proxy forwards absolute-form http:// requests; use CONNECT for https'));
      return;
    }
    serve(req, res, parsed.target, 'http', parsed.path);
  }

  return {
    handleConnect,
    handleForwardRequest,
    caCertPem: ca.caCertPem,
    async close() {
      for (const socket of live) socket.destroy();
      deps.upstreams.destroy();
      await deps.recorder.flush();
    },
  };
}
