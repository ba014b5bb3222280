// What a model call is answered through. Requests node:http serves are answered through its
// ServerResponse; the fast lane's (front.ts) through a RawReply, which writes HTTP/1.1 straight onto
// the client's socket and has the same shape for the few things the LLM handler and relay use. A
// RawReply frames its body as node:http would: by the Content-Length it was given, or chunked.
import { STATUS_CODES, type OutgoingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';
import { TOKEN } from './wire/header-lines.ts';

/** The part of node:http's ServerResponse the LLM handler and relay use. */
export interface Reply {
  readonly headersSent: boolean;
  readonly destroyed: boolean;
  /** The whole response was handed to the socket. */
  readonly writableFinished: boolean;
  /** The client's socket, for bytes passed through as they came (relay.ts); null once it is gone. */
  readonly socket: Socket | null;
  writeHead(status: number, headers: OutgoingHttpHeaders): unknown;
  /** Sends the head now rather than with the first body bytes. */
  flushHeaders(): void;
  write(chunk: Buffer, callback?: () => void): boolean;
  end(body?: string | Buffer): unknown;
  destroy(): unknown;
  once(event: 'close' | 'drain', listener: () => void): unknown;
  off(event: 'close', listener: () => void): unknown;
}

/** An answer known whole before it is sent: an error in a provider's format, the health status. */
export interface WholeAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Sends `answer`, its length said; nothing once an answer has begun or the client is gone. */
export function sendWhole(res: Reply, answer: WholeAnswer): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(answer.status, { ...answer.headers, 'content-length': Buffer.byteLength(answer.body) });
  res.end(answer.body);
}

/** Header values node:http would refuse to write (ERR_INVALID_CHAR); names must be tokens (TOKEN, ERR_INVALID_HTTP_TOKEN). */
const UNSAFE_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const LAST_CHUNK = '0\r\n\r\n';

/** A response written straight onto a kept-alive client socket; `done` is told once it is all written. */
export class RawReply implements Reply {
  headersSent = false;
  destroyed = false;
  writableFinished = false;
  private head: string | null = null;
  private chunked = false;
  private closeListeners: (() => void)[] = [];

  constructor(
    readonly socket: Socket,
    /** False when the connection closes after this response (the client asked to). */
    readonly keepAlive: boolean,
    private readonly done: (reply: RawReply) => void,
  ) {}

  writeHead(status: number, headers: OutgoingHttpHeaders): this {
    if (this.headersSent) throw new Error('the response head was already written');
    let text = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Unknown'}\r\n`;
    let framed = false;
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined) continue;
      if (!TOKEN.test(name)) throw new Error(`invalid header name ${JSON.stringify(name)}`);
      const key = name.toLowerCase();
      if (key === 'connection' || key === 'keep-alive') continue;
      if (key === 'content-length') framed = true;
      if (key === 'transfer-encoding') {
        // The only coding this writer frames; the relay sets it when it passes chunks through.
        if (String(value).toLowerCase() !== 'chunked') throw new Error(`cannot frame transfer-encoding ${JSON.stringify(value)}`);
        framed = this.chunked = true;
      }
      for (const one of Array.isArray(value) ? value : [value]) {
        const line = String(one);
        if (UNSAFE_VALUE.test(line)) throw new Error(`invalid character in header ${JSON.stringify(name)}`);
        text += `${name}: ${line}\r\n`;
      }
    }
    const bodiless = status === 204 || status === 304 || status < 200;
    if (!framed && !bodiless) {
      text += 'transfer-encoding: chunked\r\n';
      this.chunked = true;
    }
    if (!this.keepAlive) text += 'connection: close\r\n';
    this.head = `${text}\r\n`;
    this.headersSent = true;
    return this;
  }

  flushHeaders(): void {
    if (this.head === null || this.destroyed) return;
    this.socket.write(this.head);
    this.head = null;
  }

  write(chunk: Buffer, callback?: () => void): boolean {
    if (this.destroyed) return false;
    this.socket.cork();
    this.flushHeaders();
    let ok: boolean;
    if (!this.chunked) ok = this.socket.write(chunk, callback);
    else if (chunk.length === 0) ok = true;
    else {
      this.socket.write(`${chunk.length.toString(16)}\r\n`);
      this.socket.write(chunk);
      ok = this.socket.write('\r\n', callback);
    }
    this.socket.uncork();
    return ok;
  }

  end(body?: string | Buffer): this {
    if (this.writableFinished || this.destroyed) return this;
    if (!this.headersSent) this.writeHead(200, {});
    this.socket.cork();
    if (body !== undefined) this.write(typeof body === 'string' ? Buffer.from(body) : body);
    this.flushHeaders();
    if (this.chunked) this.socket.write(LAST_CHUNK);
    this.socket.uncork();
    this.writableFinished = true;
    this.done(this);
    return this;
  }

  destroy(): this {
    if (this.destroyed) return this;
    this.destroyed = true;
    this.socket.destroy();
    return this;
  }

  once(event: 'close' | 'drain', listener: () => void): this {
    if (event === 'drain') this.socket.once('drain', listener);
    else this.closeListeners.push(listener);
    return this;
  }

  off(event: 'close', listener: () => void): this {
    this.closeListeners = this.closeListeners.filter((l) => l !== listener);
    return this;
  }

  /** The client's connection closed; as node:http's response, this one says 'close'. */
  closed(): void {
    this.destroyed = true;
    const listeners = this.closeListeners;
    this.closeListeners = [];
    for (const listener of listeners) listener();
  }
}
