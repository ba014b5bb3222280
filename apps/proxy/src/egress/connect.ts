// CONNECT requests to the egress proxy. A host that no fault and no rule names gets a plain TCP
// tunnel; any other is intercepted: its decrypted connection is handed to the tunnel server, which
// serves each request inside knowing the tunnel's target (see createEgressHandler).
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { CertificateAuthority } from './ca.ts';
import type { EgressDecision, PipelineDeps } from './pipeline.ts';
import { upstreamFailedResponse, type ShapedResponse } from './responses.ts';
import { parseConnectTarget, type HostPort } from './target.ts';
import { openInterceptedTunnel, openPlainTunnel, refuseConnect } from './tunnel.ts';

/** An intercepted CONNECT: where the requests inside go, and how many it has carried. */
export interface Tunnel {
  target: HostPort;
  scheme: 'http' | 'https';
  requests: number;
}

/** What every CONNECT shares, built once per handler. */
export interface ConnectContext {
  deps: PipelineDeps;
  ca: CertificateAuthority;
  /** Hold a connection until it closes, so the handler's close() leaves nothing open. */
  track(socket: Duplex): void;
  /** Each intercepted tunnel, by its decrypted connection. */
  tunnels: WeakMap<object, Tunnel>;
  /** The server decrypted connections are fed to; it never listens itself. */
  inner: Server;
}

export function badRequest(message: string): ShapedResponse {
  return { status: 400, reason: 'Bad Request', headers: { 'content-type': 'text/plain; charset=utf-8' }, body: `${message}\n` };
}

/** For http.Server's 'connect' event. */
export function handleConnect(connects: ConnectContext, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  const { deps, track } = connects;
  const log = deps.log;
  track(socket);
  socket.on('error', () => socket.destroy());
  const target = parseConnectTarget(req.url);
  if (target === null) {
    log(`egress: refused a malformed CONNECT target ${JSON.stringify(String(req.url).slice(0, 100))}`);
    refuseConnect(socket, badRequest('CONNECT needs host:port'));
    return;
  }
  const decision = deps.decide(target.host);
  const intercept = decision.decision !== 'allow' || decision.rule !== null || deps.faults.namesHost(target.host);
  if (!intercept) tunnelPlainly(deps, socket, head, target);
  else interceptTunnel(connects, socket, head, target, decision);
}

function tunnelPlainly(deps: PipelineDeps, socket: Duplex, head: Buffer, target: HostPort): void {
  const log = deps.log;
  openPlainTunnel(socket, head, target, deps.upstreams, {
    connected: () => void deps.recorder.request(target.host, 'CONNECT', 'forwarded', 200),
    failed: (error) => {
      const shaped = upstreamFailedResponse(target.host, target.port, 'generic', error);
      log(`egress: CONNECT ${target.host}:${target.port} failed: ${error instanceof Error ? error.message : String(error)}`);
      void deps.recorder.request(target.host, 'CONNECT', 'failed', shaped.status);
      return shaped;
    },
  });
}

function interceptTunnel(connects: ConnectContext, socket: Duplex, head: Buffer, target: HostPort, decision: EgressDecision): void {
  const { deps, ca, track, tunnels, inner } = connects;
  const log = deps.log;
  log(`egress: intercepting CONNECT ${target.host}:${target.port}`);
  const tunnel: Tunnel = { target, scheme: 'https', requests: 0 };
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
