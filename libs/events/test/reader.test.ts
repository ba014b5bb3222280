// The reader's contract: "a line is well-formed iff chaosEventSchema accepts it", whether or not the
// fast path decides it, and streamEvents walks a file in bounded memory with the same verdicts.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ABORT_CONDITIONS,
  chaosEventSchema,
  COMPONENTS,
  EGRESS_OUTCOMES,
  EVENT_STRING_MAX,
  GATE_DECISIONS,
  LLM_PROVIDERS,
  MAX_EVENT_FAULTS,
  parseEventLine,
  RULE_MODES,
  stringLimitsOf,
  streamEvents,
  MAX_READ_LINE_BYTES,
  type ChaosEvent,
  type ChaosEventType,
} from '../src/index.ts';
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
  {
    v: 1,
    ts: 2,
    source: 'gate',
    run_id: 'r',
    type: 'fault_injected',
    fault_index: 0,
    fault_id: 'tool.error',
    target: 'Bash',
    hold_id: 'h',
    call_id: 'c',
    retry_after_s: 5,
    detail: 'd',
  },
  {
    v: 1,
    ts: 3,
    source: 'proxy',
    type: 'llm_call',
    provider: 'openai',
    endpoint: '/v1/responses',
    model: 'gpt',
    status: 200,
    stream: false,
    input_tokens: 1,
    output_tokens: 2,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cost_usd: 0.5,
    priced_as_unknown: true,
    duration_ms: 10,
  },
  { v: 1, ts: 4, source: 'mcp-proxy', type: 'tool_call', tool: 'read_file', ok: true, server: 'fs', call_id: '1', input_hash: 'abc' },
  {
    v: 1,
    ts: 5,
    source: 'sdk',
    type: 'gate_decision',
    tool: 'Edit',
    decision: 'hold',
    rule: 'r',
    mode: 'enforce',
    destructive: false,
    harness: 'h',
    server: 's',
    call_id: 'c',
    input_hash: 'x',
    reason: 'why',
  },
  { v: 1, ts: 6, source: 'runner', type: 'abort', condition: 'cost_usd_above', detail: '$3 > $2' },
  { v: 1, ts: 7, source: 'proxy', type: 'egress_request', host: 'api.github.test', method: 'GET', outcome: 'faulted', status: 401 },
  // No fast path: zod alone decides warnings.
  { v: 1, ts: 8, source: 'gate', type: 'warning', code: 'mutating_fault_refused', faults: [1], detail: 'not in a sandbox' },
];

/** Every string max in the schema, as limits.ts gives them to both validators. */
const stringMaxes = [...new Set(Object.values(EVENT_STRING_MAX).flatMap((limits) => Object.values(limits) as number[]))];

/** The enum fields of the events and the members each may take. */
const enumFields: Record<string, readonly string[]> = {
  source: COMPONENTS,
  provider: LLM_PROVIDERS,
  decision: GATE_DECISIONS,
  mode: RULE_MODES,
  condition: ABORT_CONDITIONS,
  outcome: EGRESS_OUTCOMES,
};

/**
 * The same corpus for both validators: each valid event, then each of its string fields at its limit
 * and one over it, each enum field at every member and at one that is not, and the fault list at its
 * length limit and one over it.
 */
function limitCorpus(): Record<string, unknown>[] {
  const corpus: Record<string, unknown>[] = [];
  for (const event of valid) {
    corpus.push(event);
    const limits = stringLimitsOf(event.type as ChaosEventType);
    for (const [field, max] of Object.entries(limits)) {
      for (const length of [max - 1, max, max + 1]) corpus.push({ ...event, [field]: 'é'.repeat(length) });
    }
    for (const [field, members] of Object.entries(enumFields)) {
      if (!(field in event)) continue;
      for (const member of [...members, 'none_of_them']) corpus.push({ ...event, [field]: member });
    }
    if ('faults' in event) {
      for (const length of [MAX_EVENT_FAULTS, MAX_EVENT_FAULTS + 1]) corpus.push({ ...event, faults: Array.from({ length }, (_, i) => i) });
    }
  }
  return corpus;
}

// Values that sit on either side of the schema's limits: lengths at and over each max, unsafe and
// non-finite numbers, -0, nulls where optional, wrong types, unknown enum members.
const edgeValue = fc.oneof(
  fc.constantFrom(0, -0, 1, -1, 0.5, 2 ** 53, 2 ** 53 - 1, 1e308, 100, 101, 429, true, false, null, [], {}, [0], [-1], Array(101).fill(0)),
  fc.constantFrom('', 'x', 'allow', 'enforce', 'proxy', 'gate', 'sdk', 'warn', 'anthropic', 'faulted', 'cost_usd_above', 'tool_call', 'llm_call'),
  // Every string max in the schema, and one over it.
  fc.constantFrom(...stringMaxes.flatMap((n) => [n, n + 1])).map((n) => 'é'.repeat(n)),
  fc.string({ maxLength: 20 }),
);

const mutated = fc.record({
  base: fc.constantFrom(...valid),
  edits: fc.array(fc.tuple(fc.constantFrom(...new Set(valid.flatMap(Object.keys)), 'extra', '__proto__'), fc.option(edgeValue, { nil: undefined })), {
    maxLength: 3,
  }),
});

describe('parseEventLine: "a line is well-formed iff chaosEventSchema accepts it"', () => {
  it('accepts every event type as written and returns what zod returns', () => {
    for (const event of valid) {
      const line = JSON.stringify(event);
      expect(isCanonicalEvent(JSON.parse(line))).toBe(event.type !== 'warning');
      expect(parseEventLine(line)).toEqual(zodOnly(line));
    }
  });

  it('agrees with zod on every field at, below and over its limit, and on every enum member', () => {
    const corpus = limitCorpus();
    expect(corpus.length).toBeGreaterThan(150);
    for (const event of corpus) {
      const zod = chaosEventSchema.safeParse(event);
      const fast = isCanonicalEvent(event);
      // Every type but warning has a fast path, and on the canonical events of those types the two
      // must agree exactly; the fast path never accepts what zod refuses or would change.
      if (event.type !== 'warning') expect({ event, fast }).toEqual({ event, fast: zod.success });
      if (fast) expect(zod.data).toEqual(event);
      const line = JSON.stringify(event);
      expect(parseEventLine(line)).toEqual(zodOnly(line));
    }
  });

  it("agrees with zod alone on 20 000 events pushed over the schema's limits, and the fast path only accepts what zod accepts unchanged", () => {
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
    [
      'an integer beyond 2^53',
      '{"v":1,"ts":1,"source":"proxy","type":"egress_request","host":"h","method":"GET","outcome":"failed","status":9007199254740993}',
      false,
    ],
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
