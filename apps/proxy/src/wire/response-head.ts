// An HTTP/1.x response head read off a raw socket (RFC 9112 §4–6): the status, the headers as
// node:http would give them, and how the body is framed — which decides both how the body is
// relayed and whether the connection can carry the next call.
import type { IncomingHttpHeaders } from 'node:http';
import { readHeaderLines } from './header-lines.ts';

export class ResponseFormatError extends Error {}

const MAX_HEAD = 64 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: (.*))?$/;

/** chunked: RFC 9112 chunks; length: Content-Length bytes; close: until the upstream closes; none: no body. */
export type BodyFraming = { kind: 'chunked' } | { kind: 'length'; bytes: number } | { kind: 'close' } | { kind: 'none' };

export interface ResponseHead {
  status: number;
  /** Lower-case names; repeated headers joined with ", " (set-cookie kept as a list), as node:http does. */
  headers: IncomingHttpHeaders;
  framing: BodyFraming;
  /** The connection may carry another request once this body is read whole. */
  keepAlive: boolean;
}

export interface HeadRead {
  head: ResponseHead;
  /** Bytes after the head: the start of the body. */
  rest: Buffer;
}

/**
 * Reads a response head from the bytes received so far: null while it is not complete. Interim
 * 1xx responses are skipped (a 101 is never asked for). Throws ResponseFormatError on anything
 * that is not HTTP/1.x.
 */
export function readResponseHead(received: Buffer): HeadRead | null {
  let buffer = received;
  for (;;) {
    const end = buffer.indexOf(HEAD_END);
    if (end === -1) {
      if (buffer.length > MAX_HEAD) throw new ResponseFormatError(`response head larger than ${MAX_HEAD} bytes`);
      return null;
    }
    const head = parseHead(buffer.toString('latin1', 0, end));
    buffer = buffer.subarray(end + HEAD_END.length);
    if (head.status >= 100 && head.status < 200) continue;
    return { head, rest: buffer };
  }
}

function parseHead(text: string): ResponseHead {
  const lines = text.split('\r\n');
  const statusLine = STATUS_LINE.exec(lines[0]!);
  if (!statusLine) throw new ResponseFormatError(`not an HTTP/1.x status line: ${JSON.stringify(lines[0]!.slice(0, 80))}`);
  const http10 = statusLine[1] === '0';
  const status = Number(statusLine[2]);
  const read = readHeaderLines(lines.slice(1));
  if ('badLine' in read) throw new ResponseFormatError(`malformed header line: ${JSON.stringify(read.badLine.slice(0, 80))}`);
  const { headers } = read;
  const framing = framingOf(status, headers);
  const connection = String(headers.connection ?? '').toLowerCase();
  const keepAlive = framing.kind !== 'close' && (http10 ? /\bkeep-alive\b/.test(connection) : !/\bclose\b/.test(connection));
  return { status, headers, framing, keepAlive };
}

function framingOf(status: number, headers: IncomingHttpHeaders): BodyFraming {
  if (status === 204 || status === 304) return { kind: 'none' };
  const te = headers['transfer-encoding'];
  if (te !== undefined) {
    const codings = te.split(',').map((c) => c.trim().toLowerCase());
    // Chunked must be the last coding; otherwise the body runs until the connection closes.
    return codings.at(-1) === 'chunked' ? { kind: 'chunked' } : { kind: 'close' };
  }
  const length = headers['content-length'];
  if (length !== undefined) {
    // Repeated identical values are allowed (RFC 9110 §8.6); anything else is not a length.
    const values = new Set(length.split(',').map((v) => v.trim()));
    const [only] = values;
    if (values.size !== 1 || !/^\d{1,15}$/.test(only!)) throw new ResponseFormatError(`invalid Content-Length: ${JSON.stringify(length)}`);
    return { kind: 'length', bytes: Number(only) };
  }
  return { kind: 'close' };
}
