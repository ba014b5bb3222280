// A lean event writer for the gates: builds lines the events schema accepts without loading zod
// (start-up time matters in a hook process). Fields are clipped to the schema's own limits, read from
// the zod-free @intutic/events/limits; a test validates this writer's output against the real schema.
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { EventInput } from '@intutic/events';
import { EVENTS_SCHEMA_VERSION, MAX_EVENT_LINE_BYTES, stringLimitsOf } from '@intutic/events/limits';

export const MAX_LINE_BYTES = MAX_EVENT_LINE_BYTES;

export function eventLine(input: EventInput, now: number): string {
  const event: Record<string, unknown> = { v: EVENTS_SCHEMA_VERSION, ts: now };
  const limits = stringLimitsOf(input.type);
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    const limit = limits[key];
    event[key] = typeof value === 'string' && limit !== undefined && value.length > limit ? value.slice(0, limit - 1) + '…' : value;
  }
  let line = JSON.stringify(event);
  // Multi-byte text or escapes can still push a line past the size that keeps appends whole.
  if (Buffer.byteLength(line) > MAX_LINE_BYTES) {
    for (const key of ['reason', 'detail', 'target', 'tool', 'server', 'call_id', 'rule', 'harness', 'hold_id', 'run_id']) {
      if (typeof event[key] === 'string') event[key] = event[key].slice(0, 60) + '…';
    }
    line = JSON.stringify(event);
  }
  return line + '\n';
}

const madeDirs = new Set<string>();

/** Append one line with a single write (O_APPEND), creating the directory on first use. */
export function appendLine(path: string, line: string): void {
  const dir = dirname(path);
  if (!madeDirs.has(dir)) {
    mkdirSync(dir, { recursive: true });
    madeDirs.add(dir);
  }
  appendFileSync(path, line);
}
