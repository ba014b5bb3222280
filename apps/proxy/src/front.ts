// The proxy's port. Model calls in their plainest form — HTTP/1.1 POST to a model API route, a body
// framed by Content-Length — take a fast lane: the head and body are read here off the socket and
// the answer is written back onto it (reply.ts), without node:http's per-request machinery, which
// costs a model call more than the relay itself (see the README's benchmarks). Anything else — the
// egress proxy's CONNECT and absolute-form requests, /health, an HTTP/1.0 client, a chunked body,
// Expect, or a request this side does not plainly understand — goes, with its connection, to the
// node:http server, which serves it as it always did. A connection that was handed over stays there.
import { createServer, type Server, type Socket } from 'node:net';
import type { Server as HttpServer } from 'node:http';
import { RawReply } from './reply.ts';
import { readRequestHead, type RequestHead } from './wire/request-head.ts';

/** A request the fast lane took: its head and whole body. */
export interface FastRequest {
  head: RequestHead;
  body: Buffer;
  /** performance.now() when its first byte was read. */
  started: number;
}

export interface FrontOptions<Route> {
  /** What the fast lane serves this request as; null hands the connection to node:http. */
  accepts(head: RequestHead): Route | null;
  serve(request: FastRequest, route: Route, reply: RawReply): void;
  /** The server everything else goes to; it never listens itself. */
  http: HttpServer;
}

export interface Front {
  server: Server;
  /** Close the connections waiting between requests (node:http's closeIdleConnections). */
  closeIdle(): void;
  /** Close every connection still the front's. */
  closeAll(): void;
}

/** A kept-alive connection idle this long between requests is closed (longer than clients keep theirs). */
const IDLE_MS = 65_000;
const SWEEP_MS = 15_000;
/** Bytes a client may send ahead while its request is being answered, before its socket is paused. */
const PIPELINED_BYTES = 1024 * 1024;
const EMPTY = Buffer.alloc(0);

export function createFront<Route>(options: FrontOptions<Route>): Front {
  const connections = new Set<FrontConnection<Route>>();
  // node:http only tracks connections (for its idle and timeout handling, closeIdleConnections and
  // closeAllConnections) once told it is listening; its own listening is the front's.
  options.http.emit('listening');
  const server = createServer({ noDelay: true }, (socket) => {
    const connection = new FrontConnection(socket, options, () => connections.delete(connection));
    connections.add(connection);
  });
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const connection of connections) if (connection.idleSince !== null && now - connection.idleSince > IDLE_MS) connection.socket.destroy();
  }, SWEEP_MS).unref();
  server.once('close', () => clearInterval(sweep));
  return {
    server,
    closeIdle: () => {
      for (const connection of connections) if (connection.idleSince !== null) connection.socket.destroy();
    },
    closeAll: () => {
      for (const connection of connections) connection.socket.destroy();
    },
  };
}

/** One client connection while the fast lane has it: requests read one at a time, answered in order. */
class FrontConnection<Route> {
  /** Bytes read and not yet served, as they came: joined once a request is whole (not per read, which is quadratic in a large body). */
  private parts: Buffer[] = [];
  private size = 0;
  private head: RequestHead | null = null;
  private route: Route | null = null;
  private started = 0;
  private current: RawReply | null = null;
  /** When the connection last went idle (no request in progress); null while one is. */
  idleSince: number | null = Date.now();

  constructor(
    readonly socket: Socket,
    private readonly options: FrontOptions<Route>,
    private readonly forget: () => void,
  ) {
    socket.on('data', this.onData);
    socket.on('close', this.onClose);
    // The 'close' that follows says the client is gone; node:http may take the socket later.
    socket.on('error', noop);
  }

  private readonly onData = (chunk: Buffer): void => {
    if (this.size === 0) this.started = performance.now();
    this.parts.push(chunk);
    this.size += chunk.length;
    if (this.current === null) this.next();
    else if (this.size > PIPELINED_BYTES) this.socket.pause();
  };

  /** The bytes read so far, in one buffer. */
  private joined(): Buffer {
    if (this.parts.length > 1) this.parts = [Buffer.concat(this.parts, this.size)];
    return this.parts[0] ?? EMPTY;
  }

  private readonly onClose = (): void => {
    this.forget();
    this.current?.closed();
    this.current = null;
  };

  /** Serve the next request buffered, once it has all arrived; hand the connection over at one the fast lane leaves. */
  private next(): void {
    if (this.size === 0) return;
    this.idleSince = null;
    if (this.head === null) {
      // Joined on every read only until the head has come: at most 64 KiB (request-head.ts).
      const head = readRequestHead(this.joined());
      if (head === 'incomplete') return this.waiting();
      const route = head === 'other' ? null : this.options.accepts(head);
      if (head === 'other' || route === null) return this.handOver();
      this.head = head;
      this.route = route;
    }
    const { head, route } = this;
    const end = head.headBytes + head.bodyBytes;
    if (this.size < end) return this.waiting();
    const bytes = this.joined();
    const body = bytes.subarray(head.headBytes, end);
    this.parts = bytes.length === end ? [] : [bytes.subarray(end)];
    this.size -= end;
    this.head = null;
    this.route = null;
    const reply = new RawReply(this.socket, !head.close, this.replied);
    this.current = reply;
    this.options.serve({ head, body, started: this.started }, route!, reply);
  }

  /** Part of a request has come: the connection is not idle, but a client that stops here is swept like one. */
  private waiting(): void {
    this.idleSince = Date.now();
  }

  private readonly replied = (reply: RawReply): void => {
    if (reply !== this.current) return;
    this.current = null;
    if (this.head === null && this.size === 0) this.idleSince = Date.now();
    if (reply.destroyed || !this.socket.writable) return;
    if (!reply.keepAlive) {
      this.socket.end();
      return;
    }
    if (this.socket.isPaused()) this.socket.resume();
    if (this.size > 0) this.started = performance.now();
    this.next();
  };

  /** node:http serves this connection from here on, starting with the bytes already read. */
  private handOver(): void {
    this.forget();
    this.socket.off('data', this.onData);
    this.socket.off('close', this.onClose);
    this.socket.off('error', noop);
    const buffered = this.joined();
    this.parts = [];
    this.size = 0;
    this.options.http.emit('connection', this.socket);
    if (this.socket.isPaused()) this.socket.resume();
    if (buffered.length > 0) this.socket.emit('data', buffered);
  }
}

function noop(): void {}
