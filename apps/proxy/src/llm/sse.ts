// Server-sent events, incrementally: splits a byte stream into whole events (the bytes up to and
// including the blank line that ends each), whatever the chunking, and reads an event's name and
// data. The relay uses the raw events to cut a stream after N of them; usage.ts reads the fields.

const LF = 10;
const EMPTY = Buffer.alloc(0);
const LF2 = Buffer.from('\n\n');
const CRLF2 = Buffer.from('\r\n\r\n');

export class SseSplitter {
  private pending: Buffer = Buffer.alloc(0);
  /** Streams almost always use bare LF; CRLF is searched for only once a CR has been seen. */
  private crlf = false;

  /** Feed bytes; returns the events completed by them, as raw bytes. */
  push(chunk: Buffer): Buffer[] {
    let buffer = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    if (!this.crlf && chunk.includes(13)) this.crlf = true;
    const events: Buffer[] = [];
    for (;;) {
      const lf = buffer.indexOf(LF2);
      const crlf = this.crlf ? buffer.indexOf(CRLF2) : -1;
      let end = -1;
      if (lf !== -1 && (crlf === -1 || lf < crlf)) end = lf + LF2.length;
      else if (crlf !== -1) end = crlf + CRLF2.length;
      if (end === -1) break;
      events.push(buffer.subarray(0, end));
      buffer = buffer.subarray(end);
    }
    // A copy: the caller may reuse the chunk's memory (the events returned are views of it).
    this.pending = buffer.length === 0 ? EMPTY : Buffer.from(buffer);
    return events;
  }

  /** Bytes of an event not yet terminated. */
  rest(): Buffer {
    return this.pending;
  }
}

/**
 * Finds only the events whose `event:` line is one of `names`, without splitting the rest of the
 * stream into events: native searches over each chunk instead of work per event, since the events
 * wanted (usage) are a handful among thousands of content deltas. A marker counts only at a line start,
 * so the scan looks for line feeds — rare in SSE data, whose JSON escapes them — or, where lines
 * are short, for a line feed followed by what all the names' lines start with (`\nevent: message_`).
 *
 * Chunks are only read during `push`: what the scanner keeps (a tail, an event being captured) it
 * copies, so a caller may reuse a chunk's memory once `push` returns.
 */
export class NamedEventScanner {
  private readonly markers: Buffer[];
  /** A line feed, then the bytes every marker starts with. */
  private readonly needle: Buffer;
  private readonly keep: number;
  /** Unscanned bytes: an event being captured, or the tail of the last chunk (a marker may straddle). */
  private carry: Buffer = Buffer.alloc(0);
  /** The byte before `carry` (LF at the stream's start, which is a line start). */
  private carryBefore = LF;
  private capturing = false;

  constructor(names: readonly string[]) {
    // A name is whole only with its line's end: `message_delta` is not `message_deltas`.
    this.markers = names.flatMap((n) => [Buffer.from(`event: ${n}\n`), Buffer.from(`event: ${n}\r`)]);
    let common = this.markers[0]!.length;
    for (const m of this.markers) while (!m.subarray(0, common).equals(this.markers[0]!.subarray(0, common))) common--;
    this.needle = Buffer.concat([Buffer.from('\n'), this.markers[0]!.subarray(0, common)]);
    // The line feed and the longest marker: a marker (with its line feed) wholly inside the kept
    // tail was already seen.
    this.keep = Math.max(...this.markers.map((m) => m.length)) + 1;
  }

  push(chunk: Buffer): Buffer[] {
    let hay: Buffer;
    // The byte before hay[0].
    let before: number;
    if (this.capturing || this.carry.length === 0 || chunk.length < 4 * this.keep) {
      hay = this.carry.length === 0 ? chunk : Buffer.concat([this.carry, chunk]);
      before = this.carryBefore;
    } else {
      // Between events only a marker straddling the junction needs the carried tail: look for one
      // in a small window rather than copying the whole chunk behind the tail.
      const window = Buffer.concat([this.carry, chunk.subarray(0, this.keep)]);
      const straddling = this.nextMarker(window, 0, this.carryBefore);
      if (straddling !== -1 && straddling < this.carry.length) {
        hay = Buffer.concat([this.carry.subarray(straddling), chunk]);
        before = straddling === 0 ? this.carryBefore : this.carry[straddling - 1]!;
        this.capturing = true;
      } else {
        hay = chunk;
        before = this.carry[this.carry.length - 1]!;
      }
    }
    const events: Buffer[] = [];
    let pos = 0;
    for (;;) {
      if (this.capturing) {
        const end = eventEnd(hay, pos);
        if (end === -1) {
          this.keepFrom(hay, pos, before);
          return events;
        }
        events.push(Buffer.from(hay.subarray(pos, end)));
        pos = end;
        this.capturing = false;
      }
      const start = this.nextMarker(hay, pos, before);
      if (start === -1) {
        this.keepFrom(hay, Math.max(pos, hay.length - this.keep), before);
        return events;
      }
      pos = start;
      this.capturing = true;
    }
  }

  /** Carries `hay` from `from` on, as a copy. */
  private keepFrom(hay: Buffer, from: number, before: number): void {
    this.carryBefore = from === 0 ? before : hay[from - 1]!;
    this.carry = Buffer.from(hay.subarray(from));
  }

  /**
   * The earliest whole marker at the start of a line, at or after `from`. Where line feeds are
   * sparse (events of kilobytes) each one is found with a byte search, the fastest there is, and
   * looked behind; where they are dense (events of a few tokens) the whole needle is searched for.
   */
  private nextMarker(hay: Buffer, from: number, before: number): number {
    if ((from === 0 ? before : hay[from - 1]) === LF && this.markerAt(hay, from)) return from;
    let lineFeeds = 0;
    let at = hay.indexOf(LF, from);
    for (; at !== -1; at = hay.indexOf(LF, at + 1)) {
      if (this.markerAt(hay, at + 1)) return at + 1;
      // More than one line feed per 256 bytes so far: dense.
      if (++lineFeeds >= 32 && (at - from) >> 8 < lineFeeds) break;
    }
    if (at === -1) return -1;
    for (at = hay.indexOf(this.needle, at + 1); at !== -1; at = hay.indexOf(this.needle, at + 1)) {
      if (this.markerAt(hay, at + 1)) return at + 1;
    }
    return -1;
  }

  private markerAt(hay: Buffer, at: number): boolean {
    // Most line starts are not `event: `: one byte tells.
    if (hay[at] !== 101) return false;
    return this.markers.some((m) => at + m.length <= hay.length && hay.compare(m, 0, m.length, at, at + m.length) === 0);
  }
}

function eventEnd(hay: Buffer, from: number): number {
  const lf = hay.indexOf(LF2, from);
  const crlf = hay.indexOf(CRLF2, from);
  if (lf !== -1 && (crlf === -1 || lf < crlf)) return lf + LF2.length;
  return crlf === -1 ? -1 : crlf + CRLF2.length;
}

/** The `event:` name of a raw event without decoding the rest of it (null when it has none). */
export function sseEventName(raw: Buffer): string | null {
  if (!raw.subarray(0, 6).equals(EVENT_PREFIX)) return null;
  const end = raw.indexOf(10);
  return raw.toString('utf8', 6, end === -1 ? raw.length : end).trim();
}
const EVENT_PREFIX = Buffer.from('event:');

export interface SseEvent {
  event: string | null;
  data: string;
}

/** The `event:` name and the joined `data:` lines of one raw event. */
export function parseSseEvent(raw: string): SseEvent {
  let event: string | null = null;
  const data: string[] = [];
  for (const line of raw.split(/\r?\n/)) {
    if (line.startsWith('data:')) data.push(line.slice(line.startsWith('data: ') ? 6 : 5));
    else if (line.startsWith('event:')) event = line.slice(6).trim();
  }
  return { event, data: data.join('\n') };
}
