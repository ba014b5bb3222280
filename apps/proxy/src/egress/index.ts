// The egress proxy the sandbox's HTTP(S)_PROXY points at, mounted on the server's 'connect' and
// absolute-form requests. Hosts that no fault and no rule names get a plain TCP tunnel; the others are
// intercepted with a per-run CA so the proxy can refuse (governance) or fail (egress.* faults) inside.
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { dirname } from 'node:path';
import type { Duplex } from 'node:stream';
import type { EventWriter } from '@intutic/events';
import type { Plan } from '@intutic/faults';
import { createCertificateAuthority, type CertificateAuthority } from './ca.ts';
import { badRequest, handleConnect, type ConnectContext, type Tunnel } from './connect.ts';
import { EgressFaults } from './faults.ts';
import { createUpstreams } from './forward.ts';
import { createDestinationGuard, parseAllowances, type Resolver } from './guard.ts';
import { policyDecider, sendShaped, serveEgressRequest, type EgressPolicy, type PipelineDeps } from './pipeline.ts';
import { EgressRecorder } from './record.ts';
import { upstreamFailedResponse } from './responses.ts';
import { normalizeOverrides, parseAbsoluteUrl, type HostPort } from './target.ts';

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

export async function createEgressHandler(opts: EgressOptions): Promise<EgressHandler> {
  const { ca, deps } = await buildPipeline(opts);
  // Every connection we hold, so close() leaves nothing open.
  const live = new Set<Duplex>();
  const tunnels = new WeakMap<object, Tunnel>();
  const connects: ConnectContext = {
    deps,
    ca,
    track: (socket) => {
      live.add(socket);
      socket.once('close', () => live.delete(socket));
    },
    tunnels,
    inner: createTunnelServer(tunnels, deps),
  };
  return {
    handleConnect: (req, socket, head) => handleConnect(connects, req, socket, head),
    handleForwardRequest: (req, res) => handleForwardRequest(req, res, deps),
    caCertPem: ca.caCertPem,
    async close() {
      for (const socket of live) socket.destroy();
      deps.upstreams.destroy();
      await deps.recorder.flush();
    },
  };
}

/** The destination guard, the per-run CA (written out for the sandbox) and what each request is served with. */
async function buildPipeline(opts: EgressOptions): Promise<{ ca: CertificateAuthority; deps: PipelineDeps }> {
  const log = opts.log;
  const overrides = normalizeOverrides(opts.hostOverrides);
  const allowPrivate = opts.allowPrivateHosts ?? [];
  const guard = createDestinationGuard({ allow: parseAllowances(allowPrivate), ...(opts.resolve ? { resolve: opts.resolve } : {}) });
  if (allowPrivate.length > 0) log(`egress: private destinations allowed: ${allowPrivate.join(', ')}`);
  const ca = createCertificateAuthority();
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
  return { ca, deps };
}

/** The server decrypted tunnel connections are fed to; each request is served for its tunnel's target. */
function createTunnelServer(tunnels: WeakMap<object, Tunnel>, deps: PipelineDeps): Server {
  const inner = createServer({ requestTimeout: 0 }, (req, res) => {
    const tunnel = tunnels.get(req.socket);
    if (tunnel === undefined) {
      sendShaped(req, res, badRequest('not a tunnel'));
      return;
    }
    tunnel.requests += 1;
    serve(req, res, tunnel.target, tunnel.scheme, req.url ?? '/', deps);
  });
  inner.on('clientError', (_error, socket: Duplex) => socket.destroy());
  return inner;
}

/** An absolute-form request (`GET http://host/path`): plain HTTP proxying. */
function handleForwardRequest(req: IncomingMessage, res: ServerResponse, deps: PipelineDeps): void {
  const parsed = parseAbsoluteUrl(req.url);
  if (parsed === null || parsed.protocol !== 'http:') {
    sendShaped(req, res, badRequest('the egress proxy forwards absolute-form http:// requests; use CONNECT for https'));
    return;
  }
  serve(req, res, parsed.target, 'http', parsed.path, deps);
}

function serve(req: IncomingMessage, res: ServerResponse, target: HostPort, scheme: 'http' | 'https', path: string, deps: PipelineDeps): void {
  const log = deps.log;
  serveEgressRequest(req, res, target, scheme, path, deps).catch((error: unknown) => {
    log(`egress: internal error on ${req.method ?? '?'} ${target.host}: ${error instanceof Error ? error.message : String(error)}`);
    sendShaped(req, res, upstreamFailedResponse(target.host, target.port, 'generic', error));
  });
}
