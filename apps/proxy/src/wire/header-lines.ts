// The header lines of an HTTP/1.x head (RFC 9112 §5), as node:http gives them: names lower-cased, a
// repeated header joined with ", " (set-cookie kept as a list), values without the spaces and tabs
// around them. Shared by the request heads the fast lane reads (request-head.ts) and the response
// heads read off upstream sockets (response-head.ts); each decides what a line it cannot read means.
import type { IncomingHttpHeaders } from 'node:http';

/** A header name (an RFC 9110 token). */
export const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** The headers, or the first line that is not a header line (no name, or one that is not a token) or that `accept` refused. */
export type HeaderLines = { headers: IncomingHttpHeaders } | { badLine: string };

/**
 * Reads `lines` (a head's lines after its start line). `accept` sees each header as it comes,
 * `repeated` when its name came before, and may refuse it.
 */
export function readHeaderLines(lines: readonly string[], accept: (key: string, value: string, repeated: boolean) => boolean = () => true): HeaderLines {
  const headers: IncomingHttpHeaders = {};
  const all = headers as Record<string, string | string[]>;
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon) : '';
    if (!TOKEN.test(name)) return { badLine: line };
    const key = name.toLowerCase();
    const value = line.slice(colon + 1).replace(/^[\t ]+|[\t ]+$/g, '');
    const existing = all[key];
    if (!accept(key, value, existing !== undefined)) return { badLine: line };
    if (key === 'set-cookie') all[key] = [...((existing as string[] | undefined) ?? []), value];
    else all[key] = existing === undefined ? value : `${existing as string}, ${value}`;
  }
  return { headers };
}
