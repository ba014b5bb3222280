import { appendFileSync, writeFileSync, readFileSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EventTail, EventWriter, MAX_EVENT_LINE_BYTES, formatEvent, parseEventLine, readAllEvents, streamEvents } from '../src/index.ts';
import { scratchDir } from '@intutic/testkit';

const dir = () => scratchDir('intutic-events-');
const toolCall = { type: 'tool_call', source: 'gate', tool: 'Bash', ok: true } as const;

describe('event writer', () => {
  it('stamps the schema version and the timestamp on every line', async () => {
    const path = join(dir(), 'events.jsonl');
    const writer = new EventWriter(path, { now: () => 1234 });
    await writer.append(toolCall);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ v: 1, ts: 1234, ...toolCall });
  });

  it('rejects an event that does not follow the schema instead of writing it', () => {
    expect(() => formatEvent({ type: 'tool_call', source: 'gate', tool: 'Bash' } as never)).toThrow();
  });

  it('keeps every line under the size that concurrent appends cannot interleave', () => {
    const line = formatEvent({
      type: 'gate_decision',
      source: 'gate',
      tool: 'Bash',
      decision: 'block',
      rule: 'r',
      mode: 'enforce',
      destructive: true,
      reason: 'x'.repeat(500),
      call_id: 'c'.repeat(200),
    });
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(MAX_EVENT_LINE_BYTES + 1);
  });

  it('appends from a synchronous writer too (short-lived hook processes)', () => {
    const path = join(dir(), 'sub', 'events.jsonl');
    new EventWriter(path).appendSync(toolCall);
    new EventWriter(path).appendSync({ ...toolCall, ok: false });
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(2);
  });
});

describe('event readers', () => {
  it('counts malformed lines and ignores them: broken JSON, unknown types, missing fields', async () => {
    const path = join(dir(), 'events.jsonl');
    const good = formatEvent(toolCall);
    writeFileSync(
      path,
      good +
        '{not json\n' +
        JSON.stringify({ v: 1, ts: 1, source: 'gate', type: 'forged' }) +
        '\n' +
        JSON.stringify({ v: 1, ts: 1, type: 'tool_call', source: 'gate' }) +
        '\n\n' +
        good,
    );
    const { events, malformed } = await readAllEvents(path);
    expect(events).toHaveLength(2);
    expect(malformed).toBe(3);
  });

  it('reads a missing file as no events (a component that never wrote)', async () => {
    expect(await streamEvents(join(dir(), 'none.jsonl'), () => {})).toEqual({ malformed: 0, lines: 0 });
  });

  it('tails only complete new lines and resumes after a partial write', async () => {
    const path = join(dir(), 'events.jsonl');
    writeFileSync(path, '');
    const tail = new EventTail(path);
    const line = formatEvent(toolCall);
    appendFileSync(path, line + line.slice(0, 10));
    expect(await tail.readNew()).toHaveLength(1);
    appendFileSync(path, line.slice(10));
    expect(await tail.readNew()).toHaveLength(1);
    expect(await tail.readNew()).toHaveLength(0);
  });

  it('starts over when the file was truncated under it', async () => {
    const path = join(dir(), 'events.jsonl');
    const line = formatEvent(toolCall);
    writeFileSync(path, line + line);
    const tail = new EventTail(path);
    expect(await tail.readNew()).toHaveLength(2);
    truncateSync(path, 0);
    appendFileSync(path, line);
    expect(await tail.readNew()).toHaveLength(1);
  });

  it('parses exactly what the schema accepts', () => {
    expect(parseEventLine(formatEvent(toolCall))).toMatchObject(toolCall);
    expect(parseEventLine('')).toBeNull();
    expect(parseEventLine('[]')).toBeNull();
  });
});
