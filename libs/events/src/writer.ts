// Append-only writer. Each event is one write(2) of one line opened with O_APPEND, so lines from
// concurrent processes never interleave as long as they stay under the pipe/page size.
import { appendFileSync, mkdirSync } from 'node:fs';
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { EVENTS_SCHEMA_VERSION, MAX_EVENT_LINE_BYTES } from './limits.ts';
import { chaosEventSchema, type ChaosEvent, type EventInput } from './schema.ts';

/** Serialize and validate one event; long free-text fields are shortened to keep the line small. */
export function formatEvent(input: EventInput, now: () => number = Date.now): string {
  const event = { v: EVENTS_SCHEMA_VERSION, ts: input.ts ?? now(), ...input } as Record<string, unknown>;
  let line = JSON.stringify(chaosEventSchema.parse(event));
  if (Buffer.byteLength(line) > MAX_EVENT_LINE_BYTES) {
    for (const key of ['detail', 'reason', 'target', 'tool']) {
      if (typeof event[key] === 'string') event[key] = event[key].slice(0, 120) + '…';
    }
    line = JSON.stringify(chaosEventSchema.parse(event));
  }
  return line + '\n';
}

export class EventWriter {
  readonly path: string;
  private readonly now: () => number;

  constructor(path: string, options: { now?: () => number } = {}) {
    this.path = path;
    this.now = options.now ?? Date.now;
  }

  async append(input: EventInput): Promise<ChaosEvent> {
    const line = formatEvent(input, this.now);
    await mkdir(dirname(this.path), { recursive: true });
    await appendFile(this.path, line, { flag: 'a' });
    return JSON.parse(line) as ChaosEvent;
  }

  /** For short-lived processes (hook gates) that must not exit before the line is on disk. */
  appendSync(input: EventInput): ChaosEvent {
    const line = formatEvent(input, this.now);
    mkdirSync(dirname(this.path), { recursive: true });
    appendFileSync(this.path, line, { flag: 'a' });
    return JSON.parse(line) as ChaosEvent;
  }
}
