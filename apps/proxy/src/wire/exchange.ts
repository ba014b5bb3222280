// A response read off a kept-alive connection (./connection.ts): its head has arrived, and `read`
// delivers the body as the socket's reads — the raw bytes to pass on and the decoded payload — then
// hands the connection back to the pool, or closes it when it cannot carry another exchange.
import type { Cancellation } from './cancel.ts';
import type { Connection } from './connection.ts';
import { ChunkedDecoder, type Scratch } from './chunked.ts';
import type { BodyFraming, ResponseHead } from './response-head.ts';

/** Bytes from the socket; returns true when the consumer kept no reference to them (their memory may be reused). */
export type Receiver = (chunk: Buffer) => boolean;

/** What an exchange gives its connection back to. */
export interface ConnectionOwner {
  release(connection: Connection): void;
  discard(connection: Connection): void;
}

export interface BodyPiece {
  /** Bytes to pass on as received (chunked framing included; the last chunk held back). */
  raw: Buffer;
  /** The body's content in those bytes, decoded from the framing (still content-encoded). */
  payload: Buffer;
  /** Chunked framing: `raw` ends between chunks, so a chunk of one's own may follow it (absent otherwise). */
  chunkEnd?: boolean;
}

export interface BodyHandlers {
  /**
   * A piece of the body. Its buffers are the connection's memory (read buffer, gather scratch), reused
   * for the next read unless this returns false: return true only when nothing kept a reference.
   */
  piece(piece: BodyPiece): boolean;
  end(): void;
  /** The body broke off: the upstream closed or reset mid-body, went silent, or broke the framing. */
  error(error: Error): void;
}

/** A response whose head has arrived; `read` delivers its body, then the connection goes back to the pool. */
export class Exchange {
  private ended = false;
  private stopWatching = (): void => undefined;

  constructor(
    private readonly pool: ConnectionOwner,
    private readonly connection: Connection,
    readonly head: ResponseHead,
    private first: Buffer,
    private readonly cancel: Cancellation,
  ) {}

  read(handlers: BodyHandlers): void {
    const { framing, keepAlive } = this.head;
    const body = bodyReader(framing, this.connection.memory.gather);
    const finish = (reusable: boolean): void => {
      if (this.ended) return;
      this.ended = true;
      this.stopWatching();
      if (reusable && keepAlive) this.pool.release(this.connection);
      else this.pool.discard(this.connection);
      handlers.end();
    };
    const fail = (error: Error): void => {
      if (this.ended) return;
      this.ended = true;
      this.stopWatching();
      this.pool.discard(this.connection);
      handlers.error(error);
    };
    const onBytes = (chunk: Buffer): boolean => {
      let step;
      try {
        step = body.push(chunk);
      } catch (error) {
        fail(new Error(`the upstream broke the response framing: ${(error as Error).message}`));
        return true;
      }
      const free = step.piece.raw.length === 0 && step.piece.payload.length === 0 ? true : handlers.piece(step.piece);
      if (!free) body.release();
      if (step.done) finish(!step.excess);
      return free;
    };
    this.connection.onData = onBytes;
    this.connection.onGone = (error) => (framing.kind === 'close' ? finish(false) : fail(error));
    this.stopWatching = this.cancel.onCancel(this.abort);
    if (framing.kind === 'none' || (framing.kind === 'length' && framing.bytes === 0)) return finish(this.first.length === 0);
    const first = this.first;
    this.first = Buffer.alloc(0);
    if (first.length > 0 && !onBytes(first)) this.connection.memory.dropEarly();
    if (!this.ended) this.connection.socket.resume();
  }

  // Once the body is read the connection may carry another exchange: its flow is no longer ours.
  pause(): void {
    if (!this.ended) this.connection.socket.pause();
  }

  resume(): void {
    if (!this.ended) this.connection.socket.resume();
  }

  /** Stop reading: the connection is closed, never reused. */
  destroy(): void {
    if (this.ended) return;
    this.ended = true;
    this.pool.discard(this.connection);
  }

  private readonly abort = (): void => this.destroy();
}

interface BodyStep {
  piece: BodyPiece;
  done: boolean;
  excess: boolean;
}

interface BodyReader {
  push(chunk: Buffer): BodyStep;
  /** The last piece is still referenced: nothing of it may be reused. */
  release(): void;
}

function bodyReader(framing: BodyFraming, scratch: Scratch): BodyReader {
  if (framing.kind === 'chunked') {
    const decoder = new ChunkedDecoder(scratch);
    return {
      push(chunk) {
        const { raw, payload, done, excess, boundary } = decoder.push(chunk);
        return { piece: { raw, payload, chunkEnd: boundary }, done, excess: excess > 0 };
      },
      release: () => decoder.release(),
    };
  }
  if (framing.kind === 'length') {
    let left = framing.bytes;
    return {
      push(chunk) {
        const body = chunk.length <= left ? chunk : chunk.subarray(0, left);
        left -= body.length;
        return { piece: { raw: body, payload: body }, done: left === 0, excess: chunk.length > body.length };
      },
      release: () => undefined,
    };
  }
  return { push: (chunk) => ({ piece: { raw: chunk, payload: chunk }, done: false, excess: false }), release: () => undefined };
}
