// Append-only writer. Each event is one write(2) of one line opened with O_APPEND, so lines from
// concurrent processes never interleave as long as they stay under the pipe/page size.
import { appendFileSync, constants, mkdirSync } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
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

/**
 * O_APPEND without following a link and without blocking: the events file lives where the sandbox
 * can replace it, and a host process appending to it must never write into what a planted link points
 * at (a shell start-up file, a key) nor wait on a FIFO. Anything but a plain file with one name is refused.
 */
const APPEND_NOFOLLOW = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export async function openEventsForAppend(path: string): Promise<FileHandle> {
  const handle = await open(path, APPEND_NOFOLLOW, 0o666);
  const info = await handle.stat().catch(async (error: unknown) => {
    await handle.close();
    throw error;
  });
  if (!info.isFile() || info.nlink !== 1) {
    await handle.close();
    throw Object.assign(new Error(`${path} is not a plain file (the sandbox replaced it?): not written`), { code: 'E_NOT_A_FILE' });
  }
  return handle;
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
    const handle = await openEventsForAppend(this.path);
    try {
      await handle.write(line);
    } finally {
      await handle.close();
    }
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
