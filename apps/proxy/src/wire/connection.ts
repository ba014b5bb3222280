// HTTP/1.1 exchanges over raw sockets, kept alive per origin. The LLM relay uses this instead of
// node:http's client so that a response body reaches it as the socket's own reads — the upstream's
// bytes with their framing, to pass on untouched, plus the decoded payload for usage — rather than
// as one stream event per chunk of the upstream's framing.
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import type { Cancellation } from './cancel.ts';
import { Exchange, type ConnectionOwner, type Receiver } from './exchange.ts';
import type { Scratch } from './chunked.ts';
import { readResponseHead } from './response-head.ts';

export interface ExchangeRequest {
  method: string;
  /** Path and query, as sent on the request line. */
  path: string;
  /** Header lines without Host and Content-Length, which are set here. */
  headers: Record<string, string | string[] | number | undefined>;
  body: Buffer;
}

export interface PoolOptions {
  /** PEM certificates trusted besides the system roots, for upstreams behind a private CA. */
  extraCa?: string[];
  connectMs: number;
  /** The longest silence on a connection waiting for, or reading, a response. */
  idleMs: number;
}

/** Failures before a response head arrived: the request may be tried again. */
export class ExchangeFailed extends Error {
  /** True when the connection came from the pool and died before answering: a stale keep-alive. */
  constructor(
    message: string,
    readonly reused: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

const IDLE_POOL_MS = 30_000;

/**
 * The memory a connection reads a body into and gathers its payload into, reused from read to read
 * — no allocation per read, which would also make V8 collect often for the external memory — as
 * long as each read's bytes are let go of at once (written through to the client, scanned for usage).
 */
export class ConnectionMemory {
  private read: Buffer | null = null;
  readonly gather: Scratch = { buffer: Buffer.alloc(0) };
  /** Where the body's first bytes (read with the head) wait for the exchange's reader. */
  private readonly early: Scratch = { buffer: Buffer.alloc(0) };

  /** The buffer for the next read. node asks for it as soon as a read's callback has returned. */
  readBuffer(): Buffer {
    return (this.read ??= Buffer.allocUnsafe(READ_BUFFER_BYTES));
  }

  /** The last read's bytes are still referenced: the next read goes into a new buffer. */
  dropRead(): void {
    this.read = null;
  }

  /** A copy of the body's first bytes, in memory reused from exchange to exchange. */
  keepEarly(bytes: Buffer): Buffer {
    if (this.early.buffer.length < bytes.length) this.early.buffer = Buffer.allocUnsafe(Math.max(bytes.length, 64 * 1024));
    bytes.copy(this.early.buffer);
    return this.early.buffer.subarray(0, bytes.length);
  }

  /** The early bytes are still referenced: the next exchange keeps its own elsewhere. */
  dropEarly(): void {
    this.early.buffer = Buffer.alloc(0);
  }
}

/** One keep-alive connection; `onData` routes its reads to the exchange in progress. */
export class Connection {
  onData: Receiver | null = null;
  onGone: ((error: Error) => void) | null = null;
  constructor(
    readonly socket: Socket,
    readonly key: string,
    readonly memory: ConnectionMemory,
  ) {
    const gone = (error?: Error): void => this.onGone?.(error ?? new Error('the upstream closed the connection'));
    socket.on('error', gone);
    socket.on('close', () => gone());
    socket.on('end', () => gone());
  }

  receive(chunk: Buffer): boolean {
    if (this.onData) return this.onData(chunk);
    this.socket.destroy(); // bytes nobody asked for: the connection is not reusable
    return true;
  }
}

/** Size of a plain connection's read buffer; reused from read to read while nothing holds it. */
const READ_BUFFER_BYTES = 1024 * 1024;

export class ConnectionPool implements ConnectionOwner {
  private readonly idle = new Map<string, Connection[]>();
  private readonly open = new Set<Connection>();

  private readonly secureContext: SecureContext | undefined;

  constructor(private readonly options: PoolOptions) {
    // One context for every connection: parsing the system roots per handshake costs milliseconds.
    this.secureContext = options.extraCa?.length ? createSecureContext({ ca: [...rootCertificates, ...options.extraCa] }) : undefined;
  }

  /** Send the request and resolve with the response head once it arrives; the body is read through the Exchange. */
  async exchange(origin: URL, request: ExchangeRequest, cancel: Cancellation): Promise<Exchange> {
    for (;;) {
      const reused = this.take(origin);
      const connection = reused ?? (await this.connect(origin, cancel));
      try {
        return await this.send(connection, origin, request, cancel, reused !== null);
      } catch (error) {
        this.discard(connection);
        // A kept-alive connection the upstream closed just before this request: not a failure of
        // the upstream, so it is not one of the caller's retries. A fresh connection is taken.
        if (!(error instanceof ExchangeFailed && error.reused)) throw error;
      }
    }
  }

  destroy(): void {
    for (const connection of this.open) connection.socket.destroy();
    this.open.clear();
    this.idle.clear();
  }

  private take(origin: URL): Connection | null {
    const list = this.idle.get(origin.origin);
    for (let connection = list?.pop(); connection; connection = list?.pop()) {
      if (!connection.socket.destroyed) {
        connection.socket.setTimeout(this.options.idleMs);
        return connection;
      }
    }
    return null;
  }

  /** Back to the pool: kept until the upstream closes it or it idles too long. */
  release(connection: Connection): void {
    connection.onData = null;
    connection.onGone = () => this.discard(connection);
    connection.socket.setTimeout(IDLE_POOL_MS);
    connection.socket.resume(); // an idle connection still reads: to see the upstream close it
    const list = this.idle.get(connection.key) ?? [];
    list.push(connection);
    this.idle.set(connection.key, list);
  }

  discard(connection: Connection): void {
    connection.onData = null;
    connection.onGone = null;
    connection.socket.destroy();
    this.open.delete(connection);
    const list = this.idle.get(connection.key);
    const at = list?.indexOf(connection) ?? -1;
    if (at !== -1) list!.splice(at, 1);
  }

  private connect(origin: URL, cancel: Cancellation): Promise<Connection> {
    const secure = origin.protocol === 'https:';
    const host = origin.hostname.replace(/^\[|\]$/g, '');
    const port = Number(origin.port || (secure ? 443 : 80));
    return new Promise((resolve, reject) => {
      let connection: Connection | null = null;
      // TLS sockets read into buffers of their own; a plain one reads into the connection's.
      const memory = new ConnectionMemory();
      const socket = secure
        ? tlsConnect({
            host,
            port,
            servername: isIP(host) ? undefined : host,
            ALPNProtocols: ['http/1.1'],
            ...(this.secureContext ? { secureContext: this.secureContext } : {}),
          })
        : netConnect({
            host,
            port,
            onread: {
              buffer: () => memory.readBuffer(),
              callback: (bytes: number, buffer: Uint8Array) => {
                const free = connection!.receive(Buffer.from(buffer.buffer, buffer.byteOffset, bytes));
                if (!free) memory.dropRead();
                return true; // keep reading; backpressure pauses the socket itself
              },
            },
          });
      if (secure) socket.on('data', (chunk: Buffer) => connection!.receive(chunk));
      const fail = (error: Error): void => {
        cleanup();
        socket.destroy();
        reject(new ExchangeFailed(error.message, false, { cause: error }));
      };
      const timer = setTimeout(() => fail(new Error(`no connection within ${this.options.connectMs / 1000} s`)), this.options.connectMs);
      const onAbort = (): void => fail(new Error('the client went away'));
      let stopWatching = (): void => undefined;
      const onReady = (): void => {
        cleanup();
        socket.setNoDelay(true);
        socket.setTimeout(this.options.idleMs);
        socket.on('timeout', () => socket.destroy(new Error('upstream idle timeout')));
        connection = new Connection(socket, origin.origin, memory);
        this.open.add(connection);
        resolve(connection);
      };
      const cleanup = (): void => {
        clearTimeout(timer);
        stopWatching();
        socket.off('error', fail);
        socket.off(secure ? 'secureConnect' : 'connect', onReady);
      };
      if (cancel.cancelled) return onAbort();
      stopWatching = cancel.onCancel(onAbort);
      socket.once('error', fail);
      socket.once(secure ? 'secureConnect' : 'connect', onReady);
    });
  }

  private send(connection: Connection, origin: URL, request: ExchangeRequest, cancel: Cancellation, reused: boolean): Promise<Exchange> {
    const head = requestHead(origin, request);
    return new Promise((resolve, reject) => {
      let received: Buffer = Buffer.alloc(0);
      let stopWatching = (): void => undefined;
      const done = (error: Error | null, exchange?: Exchange): void => {
        stopWatching();
        connection.onData = null;
        connection.onGone = null;
        if (error) reject(error);
        else resolve(exchange!);
      };
      const onAbort = (): void => done(new ExchangeFailed('the client went away', false));
      connection.onGone = (error) => done(new ExchangeFailed(`${error.message} before answering`, reused && received.length === 0, { cause: error }));
      connection.onData = (chunk) => {
        const bytes = received.length === 0 ? chunk : Buffer.concat([received, chunk]);
        let read;
        try {
          read = readResponseHead(bytes);
        } catch (error) {
          done(new ExchangeFailed(`the upstream's answer is not HTTP/1.1: ${(error as Error).message}`, false, { cause: error }));
          return true;
        }
        if (!read) {
          received = Buffer.from(bytes); // a head split between reads: kept as a copy
          return true;
        }
        // Nothing more is read until the caller reads the body. The body's first bytes wait in a
        // copy: node reuses the read buffer for the next read as soon as this returns.
        connection.socket.pause();
        done(null, new Exchange(this, connection, read.head, connection.memory.keepEarly(read.rest), cancel));
        return true;
      };
      stopWatching = cancel.onCancel(onAbort);
      // Head and body in one write.
      connection.socket.cork();
      connection.socket.write(head);
      connection.socket.write(request.body);
      connection.socket.uncork();
    });
  }
}

function requestHead(origin: URL, request: ExchangeRequest): string {
  let head = `${request.method} ${request.path} HTTP/1.1\r\nhost: ${origin.host}\r\ncontent-length: ${request.body.length}\r\n`;
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) {
      const text = String(one);
      // node:http's server already refuses these in what a client sent; nothing else may add them.
      if (/[\r\n\0]/.test(name) || /[\r\n\0]/.test(text)) throw new ExchangeFailed(`header ${JSON.stringify(name)} holds a line break`, false);
      head += `${name}: ${text}\r\n`;
    }
  }
  return `${head}\r\n`;
}
