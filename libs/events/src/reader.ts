// Readers for the events file. `EventTail` reads incrementally (the abort monitor polls it every
// second); `streamEvents` walks a whole file in constant memory (scoring a million lines).
// Both count malformed lines instead of failing on them: the report says how many were ignored.
import { isAscii } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { open, stat, type FileHandle } from 'node:fs/promises';
import { isCanonicalEvent } from './fast-validate.ts';
import { chaosEventSchema, type ChaosEvent } from './schema.ts';

/** A line longer than this many bytes is counted malformed without being held whole (writers stay under 4 KiB). */
export const MAX_READ_LINE_BYTES = 1 << 20;

const isBlank = (line: string): boolean => line.length === 0 || (line.charCodeAt(0) !== 123 /* { */ && line.trim() === '');

/**
 * One line -> an event, or null when chaosEventSchema does not accept it. Lines in the shape the
 * writer produces skip zod (see fast-validate.ts); every other line is decided by zod alone.
 */
export function parseEventLine(line: string): ChaosEvent | null {
  if (isBlank(line)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return null;
  }
  if (isCanonicalEvent(raw)) return raw as ChaosEvent;
  const parsed = chaosEventSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

export interface EventStreamResult {
  malformed: number;
  lines: number;
}

/**
 * Calls `onEvent` for every well-formed event in order. Holds one read chunk and at most one partial
 * line, so memory does not grow with the file. Lines end at "\n" (a trailing "\r" is dropped).
 */
export async function streamEvents(path: string, onEvent: (event: ChaosEvent) => void): Promise<EventStreamResult> {
  const result: EventStreamResult = { malformed: 0, lines: 0 };
  try {
    await stat(path);
  } catch {
    return result;
  }
  const take = (line: string): void => {
    if (line.charCodeAt(line.length - 1) === 13 /* \r */) line = line.slice(0, -1);
    if (isBlank(line)) return;
    result.lines++;
    const event = parseEventLine(line);
    if (event) onEvent(event);
    else result.malformed++;
  };
  // Lines are cut from raw bytes at "\n", which never occurs inside a multi-byte UTF-8 sequence, so
  // each run of whole lines decodes on its own; all-ASCII runs (the usual case) decode as latin1,
  // the cheapest conversion. This beats node:readline by about a third on a million lines.
  let carry: Buffer = Buffer.alloc(0);
  let oversized = false;
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 16 }) as AsyncIterable<Buffer>) {
    const data = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
    const last = data.lastIndexOf(10);
    if (last === -1) {
      carry = data;
    } else {
      const text = decodeLines(data.subarray(0, last));
      carry = Buffer.from(data.subarray(last + 1));
      let start = 0;
      if (oversized) {
        // The first line here is the end of a runaway line already counted.
        start = text.indexOf('\n') + 1 || text.length + 1;
        oversized = false;
      }
      while (start <= text.length) {
        let end = text.indexOf('\n', start);
        if (end === -1) end = text.length;
        take(text.slice(start, end));
        start = end + 1;
      }
    }
    if (carry.length > MAX_READ_LINE_BYTES) {
      // Count the runaway line once and skip to its end instead of buffering it.
      if (!oversized) {
        result.lines++;
        result.malformed++;
      }
      carry = Buffer.alloc(0);
      oversized = true;
    }
  }
  if (!oversized && carry.length > 0) take(decodeLines(carry));
  return result;
}

function decodeLines(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

export async function readAllEvents(path: string): Promise<{ events: ChaosEvent[]; malformed: number }> {
  const events: ChaosEvent[] = [];
  const { malformed } = await streamEvents(path, (e) => events.push(e));
  return { events, malformed };
}

/** How an EventTail opens its file; the runner passes one that refuses what the sandbox could have planted. */
export type OpenForTail = (path: string) => Promise<FileHandle>;

/** The most one readNew() takes from the file; the rest waits for the next call, so memory stays bounded. */
export const MAX_TAIL_READ_BYTES = 4 << 20;

/** Incremental reader: each `readNew()` returns the complete lines appended since the last call. */
export class EventTail {
  private offset = 0;
  private partial = '';
  malformed = 0;
  readonly path: string;
  private readonly openFile: OpenForTail;

  constructor(path: string, options: { open?: OpenForTail } = {}) {
    this.path = path;
    this.openFile = options.open ?? ((p) => open(p, 'r'));
  }

  /** The new events; none when the file cannot be opened (missing, or refused by the opener). */
  async readNew(): Promise<ChaosEvent[]> {
    let handle;
    try {
      handle = await this.openFile(this.path);
    } catch {
      return [];
    }
    try {
      const { size } = await handle.stat();
      if (size < this.offset) {
        // The file shrank: someone truncated it. Start over; the runner reports tampering separately.
        this.offset = 0;
        this.partial = '';
      }
      if (size === this.offset) return [];
      const buffer = Buffer.alloc(Math.min(size - this.offset, MAX_TAIL_READ_BYTES));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, this.offset);
      // A capped read ends at its last whole line, so no UTF-8 sequence is cut in two.
      const lastLine = bytesRead === size - this.offset ? bytesRead : buffer.subarray(0, bytesRead).lastIndexOf(10) + 1 || bytesRead;
      this.offset += lastLine;
      const text = this.partial + buffer.subarray(0, lastLine).toString('utf8');
      const lines = text.split('\n');
      this.partial = lines.pop() ?? '';
      if (this.partial.length > MAX_READ_LINE_BYTES) {
        // A runaway line is not held whole: it counts as malformed (its rest will, once more, too).
        this.malformed++;
        this.partial = '';
      }
      const events: ChaosEvent[] = [];
      for (const line of lines) {
        if (line.trim() === '') continue;
        const event = parseEventLine(line);
        if (event) events.push(event);
        else this.malformed++;
      }
      return events;
    } finally {
      await handle.close();
    }
  }
}
