// A successful stream's error events, checked for the real key before they reach the client. A
// provider may end a 200 stream with an error event (Anthropic's `event: error`, OpenAI's
// `{"error": …}` chunk and `response.failed`, Gemini's error chunk); such an event is the provider
// writing about the call, as an error answer is (error-answer.ts), so it must not quote the key.
//
// The rest of a stream is the model's own output, and is not scanned: the key goes upstream in a
// header (or Gemini's query), never in the body the model reads, so the model cannot write it. The
// guard therefore costs a stream one native search per read for the marker every provider's error
// event carries, `"error"` (Anthropic's `"type": "error"`, the `"error": {…}` of the others), on
// the bytes the relay already has: no copy, no parse. The marker is JSON structure: inside the
// model's text a quote is escaped (`\"error\"`), so content never trips it; `"error": null` (the
// Responses API's every response object) does not count. Only a read holding the marker is scanned
// for key fragments, together with the bytes before it (a fragment may straddle two reads); when
// its event has not ended with that read (or the read ends in the marker's first bytes), the reads
// are held back (copied) until it has, so no part of it goes out before it is judged.
import type { BodyPiece } from '../wire/exchange.ts';
import { withheldStreamEvent } from './errors.ts';
import type { KeyFragments } from './key-fragments.ts';
import type { KeyWatch } from './relay.ts';
import type { ModelApi } from './usage.ts';

const NEEDLE = Buffer.from('"error"');
const NULL = Buffer.from('null');
/** Bytes of what went out kept to judge what comes next: a straddling fragment or masked form. */
const TAIL = 48;
/** A held event this large is judged on what came so far, and held no longer. */
const MAX_HELD = 1024 * 1024;

export type GuardStep =
  /** Write this piece as it is. */
  | { kind: 'pass' }
  /** The piece was copied and held: nothing to write yet. */
  | { kind: 'held' }
  /** The held pieces (copies) are clean: write them, in order. */
  | { kind: 'release'; pieces: BodyPiece[] }
  /** An error event quotes a key: write nothing of it or after it; the proxy's own event ends the stream. */
  | { kind: 'withhold' };

const PASS: GuardStep = { kind: 'pass' };
const HELD: GuardStep = { kind: 'held' };
const WITHHOLD: GuardStep = { kind: 'withhold' };

export class StreamGuard {
  /** The last bytes of the payload that went out (or was judged clean). */
  private readonly tail = Buffer.alloc(TAIL);
  private tailLength = 0;
  private held: BodyPiece[] = [];
  private heldBytes = 0;
  /** The held reads hold an error marker. */
  private marked = false;
  /** Once an event is withheld: the status its error names, for the proxy's event in its place. */
  withheldStatus = 500;

  constructor(private readonly fragments: KeyFragments) {}

  /** Whether the payload that went out so far ends between events (a blank line). */
  get atEventEnd(): boolean {
    const t = this.tail.subarray(0, this.tailLength);
    return t.length === 0 || t.subarray(-2).toString('latin1') === '\n\n' || t.subarray(-4).toString('latin1') === '\r\n\r\n';
  }

  /** Whether the stream's events end in CRLF pairs (Gemini's do), as the proxy's own event then must. */
  get crlf(): boolean {
    return this.tail.subarray(0, this.tailLength).toString('latin1').endsWith('\r\n\r\n');
  }

  push(piece: BodyPiece): GuardStep {
    const payload = piece.payload;
    if (this.held.length === 0) {
      if (payload.length === 0) return PASS;
      const last = lastMarker(payload);
      // A read ending in the marker's first bytes (`"err`) is held: the rest may come next.
      const partial = endsInMarkerStart(payload);
      if (last === -1 && !partial) {
        this.remember(payload);
        return PASS;
      }
      // The usual error event comes whole in one read: judged here, on the bytes as they are.
      if (last !== -1 && !partial && eventEnds(payload, last)) {
        if (this.judge(payload)) return WITHHOLD;
        this.remember(payload);
        return PASS;
      }
      this.marked = last !== -1;
      this.hold(piece);
      return HELD;
    }
    this.hold(piece);
    const joined = Buffer.concat(this.held.map((p) => p.payload));
    const last = lastMarker(joined);
    this.marked ||= last !== -1;
    const partial = endsInMarkerStart(joined);
    // No marker after all (`"err` went on otherwise), or the event holding the last one has ended.
    const settled = !partial && (!this.marked || eventEnds(joined, Math.max(last, 0)));
    if (!settled && this.heldBytes < MAX_HELD) return HELD;
    return this.decide(joined);
  }

  /** The upstream's body has ended: what is still held is judged as it is. */
  end(): GuardStep {
    if (this.held.length === 0) return PASS;
    return this.decide(Buffer.concat(this.held.map((p) => p.payload)));
  }

  private decide(joined: Buffer): GuardStep {
    if (this.judge(joined)) return WITHHOLD;
    this.remember(joined);
    const pieces = this.held;
    this.held = [];
    this.heldBytes = 0;
    this.marked = false;
    return { kind: 'release', pieces };
  }

  /** Whether `payload`, after the tail of what went out, quotes a key (in a part that is not all in the tail). */
  private judge(payload: Buffer): boolean {
    const before = this.tail.toString('utf8', 0, this.tailLength);
    const text = payload.toString('utf8');
    if (!this.fragments.found(before + text, before.length)) return false;
    this.withheldStatus = statusNamed(text);
    return true;
  }

  /** Keep the last TAIL bytes of what went out (into memory of our own: the payload's is reused). */
  private remember(payload: Buffer): void {
    if (payload.length >= TAIL) {
      payload.copy(this.tail, 0, payload.length - TAIL);
      this.tailLength = TAIL;
      return;
    }
    const keep = Math.min(this.tailLength, TAIL - payload.length);
    this.tail.copy(this.tail, 0, this.tailLength - keep, this.tailLength);
    payload.copy(this.tail, keep);
    this.tailLength = keep + payload.length;
  }

  private hold(piece: BodyPiece): void {
    // Copies: the connection reuses a piece's memory once the relay returns.
    this.held.push({ raw: Buffer.from(piece.raw), payload: Buffer.from(piece.payload), ...(piece.chunkEnd === undefined ? {} : { chunkEnd: piece.chunkEnd }) });
    this.heldBytes += piece.payload.length;
  }
}

/** The HTTP status a provider's error event stands for: Gemini's code, or what the error type means. */
function statusNamed(text: string): number {
  const code = /"code"\s*:\s*([45]\d\d)\b/.exec(text)?.[1];
  if (code) return Number(code);
  const types: Array<[RegExp, number]> = [
    [/overloaded_error/, 529],
    [/rate_limit/, 429],
    [/authentication_error|invalid_api_key/, 401],
    [/permission_error/, 403],
    [/invalid_request_error/, 400],
  ];
  return types.find(([re]) => re.test(text))?.[1] ?? 500;
}

/**
 * The last error marker in `payload`, -1 when there is none: `"error"` but for `"error": null`. A
 * marker whose value the payload ends before counts (it may be an error).
 */
function lastMarker(payload: Buffer): number {
  let last = -1;
  for (let at = payload.indexOf(NEEDLE); at !== -1; at = payload.indexOf(NEEDLE, at + NEEDLE.length)) {
    if (!isNullValue(payload, at + NEEDLE.length)) last = at;
  }
  return last;
}

/** Whether `: null` (spaces allowed) follows at `from`. */
function isNullValue(payload: Buffer, from: number): boolean {
  let i = from;
  while (payload[i] === 32 || payload[i] === 9) i++;
  if (payload[i] !== 58) return false; // ':'
  i++;
  while (payload[i] === 32 || payload[i] === 9) i++;
  return i + NULL.length <= payload.length && payload.compare(NULL, 0, NULL.length, i, i + NULL.length) === 0;
}

/** Whether `payload` ends in the first bytes of the marker (byte loops: cheaper than native calls for a few bytes). */
function endsInMarkerStart(payload: Buffer): boolean {
  const n = payload.length;
  outer: for (let k = Math.min(NEEDLE.length - 1, n); k > 0; k--) {
    for (let j = 0; j < k; j++) if (payload[n - k + j] !== NEEDLE[j]) continue outer;
    return true;
  }
  return false;
}

/** Whether an event ends (a blank line) at or after `from` in `payload`. */
function eventEnds(payload: Buffer, from: number): boolean {
  return payload.indexOf('\n\n', from) !== -1 || payload.indexOf('\r\n\r\n', from) !== -1;
}

/** A guard for one stream of `api`'s events, with the proxy's error event to put in place of one it withholds. */
export function keyWatch(api: ModelApi, fragments: KeyFragments): KeyWatch {
  const guard = new StreamGuard(fragments);
  // The event's line ends follow the stream's: withheldStreamEvent reads them off the first event given.
  return { guard, replacement: (status) => withheldStreamEvent(api, status, guard.crlf ? '\r\n\r\n' : null) };
}
