// The two kinds of CONNECT tunnel. A plain tunnel is bytes both ways to the upstream, never looked
// at. An intercepted tunnel terminates the client's TLS with a per-run leaf certificate and hands the
// decrypted connection to an in-process HTTP server, so the proxy can answer requests itself.
import { connect, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { TLSSocket, type SecureContext } from 'node:tls';
import type { Upstreams } from './forward.ts';
import { forbiddenError } from './guard.ts';
import type { ShapedResponse } from './responses.ts';
import { normalizeHost, resolveUpstream, type HostPort } from './target.ts';

const ESTABLISHED = 'HTTP/1.1 200 Connection Established\r\n\r\n';
const CONNECT_TIMEOUT_MS = 30_000;
/** After the upstream hung up, how long a client that does not close its side is waited for. */
const TUNNEL_LINGER_MS = 10_000;
/** The first byte of a TLS handshake record. Anything else in a tunnel is plain HTTP. */
const TLS_HANDSHAKE = 0x16;

/** A whole HTTP/1.1 response written straight to a socket, for answers before a tunnel exists. */
export function rawResponse(shaped: ShapedResponse): string {
  const body = Buffer.from(shaped.body);
  const headers = { ...shaped.headers, 'content-length': String(body.length), connection: 'close' };
  const lines = Object.entries(headers).map(([k, v]) => `${k}: ${v}`);
  return `HTTP/1.1 ${shaped.status} ${shaped.reason}\r\n${lines.join('\r\n')}\r\n\r\n${shaped.body}`;
}

export function refuseConnect(client: Duplex, shaped: ShapedResponse): void {
  if (client.writable) client.end(rawResponse(shaped));
  else client.destroy();
}

/**
 * Dial the upstream; on success answer 200 and splice the sockets, on failure answer with the
 * response `report.failed` shapes. Either side closing or failing tears down the other.
 */
export function openPlainTunnel(
  client: Duplex,
  head: Buffer,
  target: HostPort,
  route: Pick<Upstreams, 'overrides' | 'guard'>,
  report: { connected(): void; failed(error: unknown): ShapedResponse },
): void {
  const dial = resolveUpstream(target, route.overrides);
  // An override is the operator's explicit choice; anything else must not lead inside, literal or resolved.
  const literal = dial.overridden ? null : route.guard.refusal(target.host, dial.address);
  if (literal) {
    refuseConnect(client, report.failed(forbiddenError(target.host, literal)));
    return;
  }
  const upstream: Socket = connect({ host: dial.address, port: dial.port, ...(dial.overridden ? {} : { lookup: route.guard.lookup }) });
  let connected = false;
  upstream.setTimeout(CONNECT_TIMEOUT_MS, () =>
    upstream.destroy(Object.assign(new Error(`connect to ${target.host}:${target.port} timed out`), { code: 'ETIMEDOUT' })),
  );
  upstream.once('connect', () => {
    connected = true;
    upstream.setTimeout(0);
    upstream.setNoDelay(true);
    if (client.destroyed) {
      upstream.destroy();
      return;
    }
    client.write(ESTABLISHED);
    if (head.length > 0) upstream.write(head);
    client.pipe(upstream);
    upstream.pipe(client);
    report.connected();
  });
  upstream.on('error', (error) => {
    if (!connected) refuseConnect(client, report.failed(error));
    else client.destroy();
  });
  // An upstream that hung up cleanly has had its last bytes piped on: end the client after them
  // (destroying it here dropped whatever the client had not read yet — a body cut short, now and
  // then, for npm behind this proxy). Only a broken upstream breaks the client off at once.
  upstream.on('close', (hadError) => {
    if (!connected) return; // refused above, or the client left first
    if (hadError) return void client.destroy();
    client.end();
    setTimeout(() => client.destroy(), TUNNEL_LINGER_MS).unref();
  });
  client.on('error', () => upstream.destroy());
  client.on('close', () => upstream.destroy());
}

/** Wait for the first byte the client sends inside the tunnel, without consuming it. */
function peekFirstByte(client: Duplex, head: Buffer, then: (byte: number | undefined) => void): void {
  if (head.length > 0) {
    client.unshift(head);
    then(head[0]);
    return;
  }
  const onData = (chunk: Buffer) => {
    cleanup();
    client.pause();
    client.unshift(chunk);
    then(chunk[0]);
  };
  const onGone = () => {
    cleanup();
    then(undefined);
  };
  const cleanup = () => {
    client.off('data', onData);
    client.off('end', onGone);
    client.off('close', onGone);
  };
  client.on('data', onData);
  client.once('end', onGone);
  client.once('close', onGone);
}

/**
 * The same bytes behind a stream with no native handle. Node's HTTP server reads a net.Socket's
 * handle directly, which would skip the byte we peeked and pushed back; through this it cannot.
 */
function jsOnlyStream(socket: Duplex): Duplex {
  const wrapper = new Duplex({
    read: () => {
      socket.resume();
    },
    write: (chunk: Buffer, encoding, callback) => {
      socket.write(chunk, encoding, callback);
    },
    final: (callback) => {
      socket.end();
      callback();
    },
    destroy: (error, callback) => {
      socket.destroy();
      callback(error);
    },
  });
  socket.on('data', (chunk: Buffer) => {
    if (!wrapper.push(chunk)) socket.pause();
  });
  socket.on('end', () => wrapper.push(null));
  socket.on('close', () => wrapper.destroy());
  socket.on('error', () => wrapper.destroy());
  return wrapper;
}

export interface InterceptDeps {
  /** The TLS context (leaf certificate) to present for the tunnel's host. */
  contextFor(host: string): SecureContext;
  /** Hand a decrypted (or plain) connection to the in-process HTTP server. */
  serve(connection: Duplex, target: HostPort, scheme: 'http' | 'https'): void;
  onTlsError(error: Error): void;
}

/** Answer 200, then terminate TLS ourselves (or read plain HTTP if that is what the client speaks). */
export function openInterceptedTunnel(client: Duplex, head: Buffer, target: HostPort, deps: InterceptDeps): void {
  client.on('error', () => client.destroy());
  client.write(ESTABLISHED);
  peekFirstByte(client, head, (byte) => {
    if (byte === undefined) {
      client.destroy();
      return;
    }
    if (byte !== TLS_HANDSHAKE) {
      deps.serve(jsOnlyStream(client), target, 'http');
      return;
    }
    let tls: TLSSocket;
    try {
      tls = new TLSSocket(client, {
        isServer: true,
        secureContext: deps.contextFor(target.host),
        // A client that names another host in SNI (it dialled an IP) gets a certificate for that name.
        SNICallback: (servername, callback) => {
          try {
            callback(null, deps.contextFor(normalizeHost(servername) ?? target.host));
          } catch (error) {
            callback(error as Error);
          }
        },
        ALPNProtocols: ['http/1.1'],
      });
    } catch (error) {
      deps.onTlsError(error as Error);
      client.destroy();
      return;
    }
    // Stays attached for the socket's life (the HTTP server adds its own): an error is never unhandled.
    let secure = false;
    tls.once('secure', () => {
      secure = true;
    });
    tls.on('error', (error: NodeJS.ErrnoException) => {
      // With TLS 1.3 a client that rejects our certificate says so (an alert) after our side is done.
      if (!secure || /ALERT_(UNKNOWN_CA|BAD_CERTIFICATE|CERTIFICATE_UNKNOWN)/.test(error.code ?? '')) deps.onTlsError(error);
      tls.destroy();
      client.destroy();
    });
    deps.serve(tls, target, 'https');
  });
}
