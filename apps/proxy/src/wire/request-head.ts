// A request head read off the proxy's own port for its fast lane (../front.ts): only the plainest
// HTTP/1.1 requests, parsed strictly (RFC 9112 §3, §5). Anything this parser does not accept — an
// odd request line, a header it cannot read unambiguously, line folding, control characters — is not
// an error here: the connection goes to node:http, which answers it as it always did. So a request
// can never mean one thing to the fast lane and another to a peer.
import type { IncomingHttpHeaders } from 'node:http';
import { readHeaderLines } from './header-lines.ts';

/** Heads longer than this go to node:http (which answers 431). */
export const MAX_REQUEST_HEAD = 64 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\/[!-~]*) HTTP\/1\.1$/;
/** Field values: visible characters, obs-text, spaces and tabs; nothing else (no CR, LF, NUL or other controls). */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** What node:http is left to judge: a value it may read otherwise, a second Host or Content-Length. */
const plain = (key: string, value: string, repeated: boolean): boolean =>
  FIELD_VALUE.test(value) && !(repeated && (key === 'content-length' || key === 'host'));

export interface RequestHead {
  method: string;
  /** Path and query, origin form. */
  target: string;
  /** Lower-case names; repeated headers joined with ", " (set-cookie kept as a list), as node:http does. */
  headers: IncomingHttpHeaders;
  /** Content-Length, 0 when absent. */
  bodyBytes: number;
  /** The client asked to close the connection after this exchange. */
  close: boolean;
  /** Bytes the head took, its blank line included. */
  headBytes: number;
}

/**
 * 'incomplete' while the head has not all arrived; 'other' for a request the fast lane leaves to
 * node:http (not HTTP/1.1, not one Host, a body not framed by one Content-Length, Expect, Upgrade,
 * or anything not plainly well-formed); otherwise the head.
 */
export function readRequestHead(received: Buffer): RequestHead | 'incomplete' | 'other' {
  const end = received.indexOf(HEAD_END);
  if (end === -1) return received.length > MAX_REQUEST_HEAD ? 'other' : 'incomplete';
  if (end > MAX_REQUEST_HEAD) return 'other';
  const lines = received.toString('latin1', 0, end).split('\r\n');
  const requestLine = REQUEST_LINE.exec(lines[0]!);
  if (!requestLine) return 'other';
  const read = readHeaderLines(lines.slice(1), plain);
  if ('badLine' in read) return 'other';
  const { headers } = read;
  // HTTP/1.1 requires Host (node:http answers 400 without one).
  if (headers.host === undefined) return 'other';
  if (headers['transfer-encoding'] !== undefined || headers.expect !== undefined || headers.upgrade !== undefined) return 'other';
  const length = headers['content-length'];
  if (length !== undefined && !/^\d{1,15}$/.test(length)) return 'other';
  const connection = String(headers.connection ?? '').toLowerCase();
  return {
    method: requestLine[1]!,
    target: requestLine[2]!,
    headers,
    bodyBytes: length === undefined ? 0 : Number(length),
    close: /(?:^|[\s,])close(?:$|[\s,])/.test(connection),
    headBytes: end + HEAD_END.length,
  };
}
