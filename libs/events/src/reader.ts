// Readers for the events file. `EventTail` reads incrementally (the abort monitor polls it every
// second); `streamEvents` walks a whole file in constant memory (scoring a million lines).
// Both count malformed lines instead of failing on them: the report says how many were ignored.
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { chaosEventSchema, type ChaosEvent } from './schema.ts';

export function parseEventLine(line: string): ChaosEvent | null {
  if (line.trim() === '') return null;
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return null;
  }
  const parsed = chaosEventSchema.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

export interface EventStreamResult {
  malformed: number;
  lines: number;
}

/** Calls `onEvent` for every well-formed event in order; never holds more than one line. */
export async function streamEvents(path: string, onEvent: (event: ChaosEvent) => void): Promise<EventStreamResult> {
  const result: EventStreamResult = { malformed: 0, lines: 0 };
  let input;
  try {
    await stat(path);
    input = createReadStream(path, { encoding: 'utf8' });
  } catch {
    return result;
  }
  const rl = createInterface({ input, crlfDelay: Infinity });
  for await (const line of rl) {
    if (line.trim() === '') continue;
    result.lines++;
    const event = parseEventLine(line);
    if (event) onEvent(event);
    else result.malformed++;
  }
  return result;
}

export async function readAllEvents(path: string): Promise<{ events: ChaosEvent[]; malformed: number }> {
  const events: ChaosEvent[] = [];
  const { malformed } = await streamEvents(path, (e) => events.push(e));
  return { events, malformed };
}

/** Incremental reader: each `readNew()` returns the complete lines appended since the last call. */
export class EventTail {
  private offset = 0;
  private partial = '';
  malformed = 0;
  readonly path: string;

  constructor(path: string) {
    this.path = path;
  }

  async readNew(): Promise<ChaosEvent[]> {
    let handle;
    try {
      handle = await open(this.path, 'r');
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
      const buffer = Buffer.alloc(size - this.offset);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, this.offset);
      this.offset += bytesRead;
      const text = this.partial + buffer.subarray(0, bytesRead).toString('utf8');
      const lines = text.split('\n');
      this.partial = lines.pop() ?? '';
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
