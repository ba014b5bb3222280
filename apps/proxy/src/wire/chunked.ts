// HTTP/1.1 chunked transfer coding (RFC 9112 §7.1), read incrementally from a raw response body.
// For each piece read from the socket it gives two things: the payload (the chunks' data, for the
// usage collector and a stream cut) and the raw bytes that may be passed on as they came — the
// upstream's own framing, up to the last chunk. The last chunk and its trailers are held back: the
// server side ends the client's response with its own `0\r\n\r\n`. A size line split between two
// reads is held back too until it is whole, since it may turn out to be that last chunk.

export class ChunkedFormatError extends Error {}

const MAX_LINE = 4096;
const CR = 13;
const LF = 10;

type State = 'size' | 'data' | 'data-cr' | 'data-lf' | 'trailer' | 'done';

export interface ChunkedPiece {
  /**
   * The chunks' data in this piece: a view of the piece when it is one run of bytes, else gathered
   * into the decoder's own buffer, which the next `push` reuses — read it before then, or call
   * `release()` to keep it.
   */
  payload: Buffer;
  /** The piece's bytes to pass on as they are: framing included, the last chunk excluded. */
  raw: Buffer;
  /** The last chunk and its trailers have been read: the body is complete. */
  done: boolean;
  /** `raw` ends between two chunks (not inside one's data): bytes of one's own may be framed after it. */
  boundary: boolean;
  /** Bytes after the end of the body (a protocol error on a connection we would reuse). */
  excess: number;
}

/** A buffer the payload is gathered into, shared by the decoders of one connection. */
export interface Scratch {
  buffer: Buffer;
}

export class ChunkedDecoder {
  private state: State = 'size';
  private left = 0;
  /** One connection's exchanges follow each other, so its decoders can share one scratch buffer. */
  constructor(private readonly scratch: Scratch = { buffer: Buffer.alloc(0) }) {}

  /** An unfinished size or trailer line carried over from the last piece. */
  private line: Buffer | null = null;
  private readonly runs: number[] = [];

  push(piece: Buffer): ChunkedPiece {
    // A size line held back last time goes out in front of this piece (once it is known not to be
    // the last chunk's).
    let input = piece;
    if (this.line) {
      input = Buffer.concat([this.line, piece]);
      this.line = null;
    }
    // The data runs in `input`, as start/end offsets: no object per chunk, which matters when
    // a stream is thousands of small events.
    const runs = this.runs;
    runs.length = 0;
    // Nothing after the start of the last chunk is passed on.
    let rawEnd = this.state === 'trailer' || this.state === 'done' ? 0 : input.length;
    let i = 0;
    let excess = 0;
    const end = input.length;
    while (i < end) {
      switch (this.state) {
        case 'size': {
          const lf = lineEnd(input, i);
          if (lf === -1) {
            this.holdLine(input, i);
            rawEnd = i;
            i = end;
            break;
          }
          const size = parseSizeLine(input, i, lf);
          if (size === 0) {
            rawEnd = i;
            this.state = 'trailer';
          } else {
            this.left = size;
            this.state = 'data';
          }
          i = lf + 1;
          break;
        }
        case 'data': {
          const n = Math.min(this.left, end - i);
          runs.push(i, i + n);
          i += n;
          this.left -= n;
          if (this.left > 0) break;
          // The usual case: the CRLF after the data is in this piece too.
          if (i + 1 < end && input[i] === CR && input[i + 1] === LF) {
            i += 2;
            this.state = 'size';
          } else {
            this.state = 'data-cr';
          }
          break;
        }
        case 'data-cr':
          // A bare LF after the data is tolerated, as for the size line.
          if (input[i] === CR) i++;
          else if (input[i] !== LF) throw new ChunkedFormatError('chunk data not followed by CRLF');
          this.state = 'data-lf';
          break;
        case 'data-lf':
          if (input[i] !== LF) throw new ChunkedFormatError('chunk data not followed by CRLF');
          i++;
          this.state = 'size';
          break;
        case 'trailer': {
          const lf = lineEnd(input, i);
          if (lf === -1) {
            this.holdLine(input, i);
            i = end;
            break;
          }
          const empty = lf === i || (lf === i + 1 && input[i] === CR);
          i = lf + 1;
          if (empty) this.state = 'done';
          break;
        }
        case 'done':
          excess = end - i;
          i = end;
          break;
      }
    }
    const payload = runs.length === 2 ? input.subarray(runs[0], runs[1]) : this.gather(input, runs);
    // A held size line or the last chunk starts where `raw` ends: that is between chunks too.
    const boundary = this.state === 'size' || this.state === 'trailer' || this.state === 'done';
    return { payload, raw: input.subarray(0, rawEnd), done: this.state === 'done', excess, boundary };
  }

  /** The last payload is still referenced: the next one is gathered into a new buffer. */
  release(): void {
    this.scratch.buffer = Buffer.alloc(0);
  }

  /** Copies the runs into the reused scratch buffer: no allocation per socket read. */
  private gather(input: Buffer, runs: number[]): Buffer {
    let total = 0;
    for (let r = 0; r < runs.length; r += 2) total += runs[r + 1]! - runs[r]!;
    let scratch = this.scratch.buffer;
    if (scratch.length < total) scratch = this.scratch.buffer = Buffer.allocUnsafe(Math.max(total, 2 * scratch.length));
    let at = 0;
    for (let r = 0; r < runs.length; r += 2) at += input.copy(scratch, at, runs[r], runs[r + 1]);
    return scratch.subarray(0, total);
  }

  private holdLine(input: Buffer, from: number): void {
    if (input.length - from > MAX_LINE) throw new ChunkedFormatError('chunk size or trailer line too long');
    this.line = Buffer.from(input.subarray(from));
  }
}

/** The LF ending the line that starts at `from` (-1: not in this piece); lines are short, so a loop beats a native call. */
function lineEnd(input: Buffer, from: number): number {
  const stop = Math.min(input.length, from + MAX_LINE + 2);
  for (let i = from; i < stop; i++) if (input[i] === LF) return i;
  if (stop < input.length) throw new ChunkedFormatError('chunk size or trailer line too long');
  return -1;
}

/** The size of a chunk from its line: hex digits, then optional whitespace and `;extensions`. */
function parseSizeLine(input: Buffer, from: number, lf: number): number {
  let size = 0;
  let digits = 0;
  let i = from;
  for (; i < lf; i++) {
    const c = input[i]!;
    const v = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1;
    if (v === -1) break;
    if (++digits > 12) throw new ChunkedFormatError('chunk size too large');
    size = size * 16 + v;
  }
  if (digits === 0) throw new ChunkedFormatError('chunk size line without a size');
  const end = lf > from && input[lf - 1] === CR ? lf - 1 : lf;
  for (; i < end; i++) {
    const c = input[i]!;
    if (c === 59) break; // ';' starts the extensions, which are ignored
    if (c !== 32 && c !== 9) throw new ChunkedFormatError('malformed chunk size line');
  }
  return size;
}
