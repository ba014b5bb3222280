// Server-sent events, incrementally: splits a byte stream into whole events (the bytes up to and
// including the blank line that ends each), whatever the chunking, and reads an event's name and
// data. The relay uses the raw events to cut a stream after N of them; usage.ts reads the fields.

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
    // A view, not a copy: the chunk's memory is not reused once handed over.
    this.pending = buffer;
    return events;
  }

  /** Bytes of an event not yet terminated. */
  rest(): Buffer {
    return this.pending;
  }
}

/**
 * Finds only the events whose `event:` line is one of `names`, without splitting the rest of the
 * stream into events: a few native scans per chunk instead of work per event, since the events
 * wanted (usage) are a handful among thousands of content deltas.
 */
export class NamedEventScanner {
  private readonly markers: Buffer[];
  private readonly keep: number;
  /** Unscanned bytes: an event being captured, or the tail of the last chunk (a marker may straddle). */
  private carry: Buffer = Buffer.alloc(0);
  private capturing = false;

  constructor(names: readonly string[]) {
    this.markers = names.map((n) => Buffer.from(`event: ${n}`));
    // One byte more than the longest marker: a marker wholly inside the kept tail was already seen.
    this.keep = Math.max(...this.markers.map((m) => m.length)) + 1;
  }

  push(chunk: Buffer): Buffer[] {
    let hay: Buffer;
    // The byte before hay[0] when it is not in hay (-1: none, the stream's start or carried bytes).
    let before = -1;
    if (this.capturing || this.carry.length === 0 || chunk.length < 4 * this.keep) {
      hay = this.carry.length === 0 ? chunk : Buffer.concat([this.carry, chunk]);
    } else {
      // Between events only a marker straddling the junction needs the carried tail: look for one
      // in a small window rather than copying the whole chunk behind the tail.
      const window = Buffer.concat([this.carry, chunk.subarray(0, this.keep)]);
      const straddling = this.nextMarker(window, 0, -1);
      if (straddling !== -1 && straddling < this.carry.length) {
        hay = Buffer.concat([this.carry.subarray(straddling), chunk]);
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
          this.carry = hay.subarray(pos);
          return events;
        }
        events.push(hay.subarray(pos, end));
        pos = end;
        this.capturing = false;
      }
      const start = this.nextMarker(hay, pos, before);
      if (start === -1) {
        this.carry = hay.subarray(Math.max(pos, hay.length - this.keep));
        return events;
      }
      pos = start;
      this.capturing = true;
    }
  }

  /** The earliest marker at the start of a line (real newlines in SSE only separate lines). */
  private nextMarker(hay: Buffer, from: number, before: number): number {
    const atLineStart = (at: number): boolean => (at === 0 ? before === -1 || before === 10 : hay[at - 1] === 10);
    let best = -1;
    for (const marker of this.markers) {
      let at = hay.indexOf(marker, from);
      while (at !== -1 && !atLineStart(at)) at = hay.indexOf(marker, at + 1);
      if (at !== -1 && (best === -1 || at < best)) best = at;
    }
    return best;
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
