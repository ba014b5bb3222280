// The reader's contract: "a line is well-formed iff chaosEventSchema accepts it", whether or not the
// fast path decides it, and streamEvents walks a file in bounded memory with the same verdicts.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { chaosEventSchema, parseEventLine, streamEvents, MAX_READ_LINE_BYTES, type ChaosEvent } from '../src/index.ts';
import { isCanonicalEvent } from '../src/fast-validate.ts';
import { scratchDir } from '@intutic/testkit';

/** What the reader did before the fast path: JSON.parse, then zod alone. */
function zodOnly(line: string): ChaosEvent | null {
  if (line.trim() === '') return null;
  try {
    const parsed = chaosEventSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

const valid: Record<string, unknown>[] = [
  { v: 1, ts: 1, source: 'proxy', type: 'plan_loaded', faults: [0, 2], detail: 'proxy' },
  { v: 1, ts: 2, source: 'gate', run_id: 'r', type: 'fault_injected', fault_index: 0, fault_id: 'tool.error', target: 'Bash', hold_id: 'h', call_id: 'c', retry_after_s: 5, detail: 'd' },
  { v: 1, ts: 3, source: 'proxy', type: 'llm_call', provider: 'openai', endpoint: '/v1/responses', model: 'gpt', status: 200, stream: false, input_tokens: 1, output_tokens: 2, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, cost_usd: 0.5, priced_as_unknown: true, duration_ms: 10 },
  { v: 1, ts: 4, source: 'mcp-proxy', type: 'tool_call', tool: 'read_file', ok: true, server: 'fs', call_id: '1', input_hash: 'abc' },
  { v: 1, ts: 5, source: 'sdk', type: 'gate_decision', tool: 'Edit', decision: 'hold', rule: 'r', mode: 'enforce', destructive: false, harness: 'h', server: 's', call_id: 'c', input_hash: 'x', reason: 'why' },
  { v: 1, ts: 6, source: 'runner', type: 'abort', condition: 'cost_usd_above', detail: '$3 > $2' },
  { v: 1, ts: 7, source: 'proxy', type: 'egress_request', host: 'api.github.test', method: 'GET', outcome: 'faulted', status: 401 },
];

// Values that sit on either side of the schema's limits: lengths at and over each max, unsafe and
// non-finite numbers, -0, nulls where optional, wrong types, unknown enum members.
const edgeValue = fc.oneof(
  fc.constantFrom(0, -0, 1, -1, 0.5, 2 ** 53, 2 ** 53 - 1, 1e308, 100, 101, 429, true, false, null, [], {}, [0], [-1], Array(101).fill(0)),
  fc.constantFrom('', 'x', 'allow', 'enforce', 'proxy', 'gate', 'sdk', 'warn', 'anthropic', 'faulted', 'cost_usd_above', 'tool_call', 'llm_call'),
  // Every string max in the schema, and one over it.
  fc.constantFrom(20, 21, 60, 61, 100, 101, 200, 201, 300, 301, 500, 501).map((n) => 'é'.repeat(n)),
  fc.string({ maxLength: 20 }),
);

const mutated = fc.record({
  base: fc.constantFrom(...valid),
  edits: fc.array(fc.tuple(fc.constantFrom(...new Set(valid.flatMap(Object.keys)), 'extra', '__proto__'), fc.option(edgeValue, { nil: undefined })), { maxLength: 3 }),
});

describe('parseEventLine: "a line is well-formed iff chaosEventSchema accepts it"', () => {
  it('accepts every event type as written and returns what zod returns', () => {
    for (const event of valid) {
      const line = JSON.stringify(event);
      expect(isCanonicalEvent(JSON.parse(line))).toBe(true);
      expect(parseEventLine(line)).toEqual(zodOnly(line));
    }
  });

  it('agrees with zod alone on 20 000 events pushed over the schema\'s limits, and the fast path only accepts what zod accepts unchanged', () => {
    fc.assert(
      fc.property(mutated, ({ base, edits }) => {
        const event: Record<string, unknown> = { ...base };
        for (const [key, value] of edits) {
          if (value === undefined) delete event[key];
          else event[key] = value;
        }
        const line = JSON.stringify(event);
        const raw = JSON.parse(line);
        if (isCanonicalEvent(raw)) {
          const parsed = chaosEventSchema.safeParse(raw);
          expect(parsed.success).toBe(true);
          expect(parsed.data).toEqual(raw);
          expect(Object.keys(parsed.data!).sort()).toEqual(Object.keys(raw).sort());
        }
        expect(parseEventLine(line)).toEqual(zodOnly(line));
      }),
      { numRuns: 20_000 },
    );
  });

  it.each([
    ['an unknown key (zod strips it, so the zod path decides)', '{"v":1,"ts":1,"source":"gate","type":"tool_call","tool":"Bash","ok":true,"extra":1}', true],
    ['a string one over its max', JSON.stringify({ ...valid[3], tool: 'x'.repeat(301) }), false],
    ['an integer beyond 2^53', '{"v":1,"ts":1,"source":"proxy","type":"egress_request","host":"h","method":"GET","outcome":"failed","status":9007199254740993}', false],
    ['a timestamp of 1e400 (Infinity)', '{"v":1,"ts":1e400,"source":"gate","type":"tool_call","tool":"Bash","ok":true}', false],
    ['an unknown type', '{"v":1,"ts":1,"source":"gate","type":"tool_call_v2","tool":"Bash","ok":true}', false],
    ['a type naming an Object.prototype member', '{"v":1,"ts":1,"source":"gate","type":"constructor"}', false],
    ['a JSON array', '[1,2]', false],
    ['truncated JSON', '{"v":1,"ts":1,"source":"gate","type":"tool_call"', false],
  ])('%s', (_name, line, wellFormed) => {
    expect(parseEventLine(line) !== null).toBe(wellFormed);
    expect(parseEventLine(line)).toEqual(zodOnly(line));
  });
});

describe('streamEvents', () => {
  const dir = scratchDir('intutic-reader-');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads every line across read chunks, with CRLF endings, blank lines and no final newline, and counts the malformed ones', async () => {
    const path = join(dir, 'events.jsonl');
    const lines: string[] = [];
    for (let i = 0; i < 30_000; i++) lines.push(JSON.stringify({ ...valid[3], ts: i, call_id: `c${i}`, tool: i % 2 ? 'Bash' : 'Read_ünïcode' }));
    lines.splice(10, 0, 'not json', '', '   ', '{"v":2}');
    writeFileSync(path, lines.join('\r\n'));
    const seen: ChaosEvent[] = [];
    const result = await streamEvents(path, (e) => seen.push(e));
    expect(result).toEqual({ lines: 30_002, malformed: 2 });
    expect(seen).toHaveLength(30_000);
    expect(seen[29_999]).toMatchObject({ ts: 29_999, call_id: 'c29999' });
  });

  it(`counts a line longer than ${MAX_READ_LINE_BYTES} bytes as one malformed line without holding it`, async () => {
    const path = join(dir, 'runaway.jsonl');
    writeFileSync(path, `${JSON.stringify(valid[0])}\n${'x'.repeat(3 * MAX_READ_LINE_BYTES)}\n${JSON.stringify(valid[1])}\n`);
    const seen: ChaosEvent[] = [];
    expect(await streamEvents(path, (e) => seen.push(e))).toEqual({ lines: 3, malformed: 1 });
    expect(seen.map((e) => e.type)).toEqual(['plan_loaded', 'fault_injected']);
  });

  it('reports nothing for a missing file', async () => {
    expect(await streamEvents(join(dir, 'missing.jsonl'), () => {})).toEqual({ lines: 0, malformed: 0 });
  });
});
