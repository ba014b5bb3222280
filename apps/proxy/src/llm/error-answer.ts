// An upstream answer that is not a success (any status outside 2xx), relayed only once it is read
// whole and known not to quote a real key (key-fragments.ts). Providers' error answers are where a
// key shows up: OpenAI's 401 prints the key it was sent, masked. Such an answer is replaced with the
// proxy's own, in the provider's format, with the provider's status and error type, and the body
// itself is never logged. Error answers are small and rare, so reading one whole costs nothing a
// model call would notice; successful answers never come here (relay.ts streams them as they come).
//
// What cannot be checked is withheld too: a body larger than MAX_ERROR_BYTES, or one in a content
// coding the proxy cannot decode.
import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import type { OutgoingHttpHeaders } from 'node:http';
import { endToEndHeaders } from '../headers.ts';
import type { Reply } from '../reply.ts';
import { sendWhole } from '../reply.ts';
import { withheldError } from './errors.ts';
import type { KeyFragments } from './key-fragments.ts';
import type { RelayOutcome, UpstreamBody } from './relay.ts';
import type { Provider } from './routes.ts';
import type { UsageCollector } from './usage.ts';

/** Error bodies are a few hundred bytes; anything this large is not one a provider wrote. */
export const MAX_ERROR_BYTES = 1024 * 1024;
/** A decoded body may not grow past this (a compression bomb). */
const MAX_DECODED_BYTES = 8 * MAX_ERROR_BYTES;

/** Why an answer was withheld, for the log (never its content). */
export type WithheldReason = 'quotes a key' | 'too large to check' | 'encoding not readable';

export interface ErrorRelayOutcome extends RelayOutcome {
  /** Why the answer was replaced by the proxy's own; null when it went as it came. */
  withheldWhy: WithheldReason | null;
}

/** Read the error answer whole, then pass it on as it came, or the proxy's own answer in its place. */
export function relayErrorAnswer(
  provider: Provider,
  upstream: UpstreamBody,
  res: Reply,
  collector: UsageCollector,
  fragments: KeyFragments,
): Promise<ErrorRelayOutcome> {
  return new Promise((resolve) => {
    const outcome: ErrorRelayOutcome = { clientGone: false, upstreamFailed: false, cut: false, withheld: false, withheldWhy: null };
    const parts: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (): void => {
      if (settled) return;
      settled = true;
      resolve(outcome);
    };
    res.once('close', () => {
      if (res.writableFinished) return;
      outcome.clientGone = true;
      upstream.destroy();
      settle();
    });
    const { status, headers } = upstream.head;
    const answer = (): void => {
      if (settled) return;
      if (outcome.clientGone) return settle();
      const body = Buffer.concat(parts, size);
      const reason = size > MAX_ERROR_BYTES ? 'too large to check' : checkBody(body, headers['content-encoding'], fragments);
      const passed = endToEndHeaders(headers);
      const tainted = Object.entries(passed).filter(([, value]) => fragments.found(String(value)));
      if (reason === null && tainted.length === 0) {
        res.writeHead(status, { ...passed, 'content-length': body.length });
        res.end(body);
      } else {
        outcome.withheld = true;
        outcome.withheldWhy = reason ?? 'quotes a key';
        sendWhole(res, withheldError(provider, status, errorIdentity(body, fragments), keptHeaders(passed, fragments)));
      }
      settle();
    };
    upstream.read({
      piece(piece) {
        if (piece.payload.length === 0) return true;
        collector.push(piece.payload);
        if (size <= MAX_ERROR_BYTES) parts.push(Buffer.from(piece.payload)); // the piece's memory is reused
        size += piece.payload.length;
        if (size > MAX_ERROR_BYTES && !settled) {
          // No need to read the rest: it is withheld whatever it says.
          upstream.destroy();
          answer();
        }
        return true;
      },
      end: answer,
      error() {
        if (settled) return;
        outcome.upstreamFailed = true;
        // What came before the break is not passed on either: the client sees the answer break off.
        res.destroy();
        settle();
      },
    });
  });
}

/** null when `body` can be read and quotes no key; otherwise why it must be withheld. */
function checkBody(body: Buffer, encoding: string | string[] | undefined, fragments: KeyFragments): WithheldReason | null {
  const text = decoded(body, encoding);
  if (text === null) return 'encoding not readable';
  if (fragments.found(text)) return 'quotes a key';
  // A JSON body may spell characters as \u escapes: what a client shows is the decoded string.
  if (text.includes('\\')) {
    try {
      if (fragments.found(stringsOf(JSON.parse(text)))) return 'quotes a key';
    } catch {
      // not JSON: the raw text was all there is to read
    }
  }
  return null;
}

/** The body as text with its content codings undone (innermost last); null when one is unknown or broken. */
function decoded(body: Buffer, encoding: string | string[] | undefined): string | null {
  const codings = String(encoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  let bytes = body;
  try {
    for (const coding of codings.reverse()) {
      const options = { maxOutputLength: MAX_DECODED_BYTES };
      if (coding === 'gzip' || coding === 'x-gzip') bytes = gunzipSync(bytes, options);
      else if (coding === 'br') bytes = brotliDecompressSync(bytes, options);
      else if (coding === 'deflate') bytes = inflateOrRaw(bytes, options);
      else return null;
    }
  } catch {
    return null;
  }
  return bytes.toString('utf8');
}

/** `deflate` is zlib-wrapped by the standard, raw in some servers' hands. */
function inflateOrRaw(bytes: Buffer, options: { maxOutputLength: number }): Buffer {
  try {
    return inflateSync(bytes, options);
  } catch {
    return inflateRawSync(bytes, options);
  }
}

function stringsOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(stringsOf).join('\n');
  if (typeof value === 'object' && value !== null) return Object.values(value).map(stringsOf).join('\n');
  return '';
}

/**
 * The provider's error type and code, read from its body when they are plain identifiers and quote
 * no key, so the agent's SDK still raises the error it would have (an OpenAI 401 keeps
 * `invalid_api_key`). Never the message.
 */
export interface ErrorIdentity {
  type?: string;
  code?: string;
}

const IDENTIFIER = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

function errorIdentity(body: Buffer, fragments: KeyFragments): ErrorIdentity {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return {};
  }
  const error = (parsed as { error?: unknown } | null)?.error;
  if (typeof error !== 'object' || error === null) return {};
  const plain = (v: unknown): string | undefined => (typeof v === 'string' && IDENTIFIER.test(v) && !fragments.found(v) ? v : undefined);
  const { type, code, status } = error as Record<string, unknown>;
  const identity: ErrorIdentity = {};
  const t = plain(type) ?? plain(status);
  const c = plain(code);
  if (t) identity.type = t;
  if (c) identity.code = c;
  return identity;
}

/** The headers an agent's SDK acts on (when to retry, which request it was), when they quote no key. */
const KEPT = /^(?:retry-after|retry-after-ms|request-id|x-request-id|(?:anthropic|x)-ratelimit-.*)$/;

function keptHeaders(headers: OutgoingHttpHeaders, fragments: KeyFragments): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || !KEPT.test(name)) continue;
    const text = Array.isArray(value) ? value.join(', ') : String(value);
    if (!fragments.found(text)) kept[name] = text;
  }
  return kept;
}
