// The gates' lean event writer against the real events schema (zod), for arbitrary field values.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chaosEventSchema, MAX_EVENT_LINE_BYTES } from '@intutic/events';
import { eventLine, MAX_LINE_BYTES } from '../src/index.ts';

const hex = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), maxLength: 32 });

const text = fc.string({ unit: 'binary', maxLength: 2000 });

describe('eventLine', () => {
  it('keeps the line size limit of the events contract', () => {
    expect(MAX_LINE_BYTES).toBe(MAX_EVENT_LINE_BYTES);
  });

  it('writes schema-valid lines, clipped to the schema limits and the line size', () => {
    const events = fc.oneof(
      fc.record({
        type: fc.constant('gate_decision'),
        source: fc.constantFrom('gate', 'sdk'),
        tool: text.filter((s) => s.length > 0),
        decision: fc.constantFrom('allow', 'block', 'hold', 'redact'),
        rule: fc.option(text, { nil: null }),
        mode: fc.constantFrom('enforce', 'warn', 'shadow', null),
        destructive: fc.boolean(),
        harness: text,
        call_id: text,
        input_hash: hex,
        reason: text,
        server: text,
      }),
      fc.record({
        type: fc.constant('fault_injected'),
        source: fc.constant('gate'),
        fault_index: fc.nat(99),
        fault_id: fc.constantFrom('tool.error', 'permission.deny_or_delay'),
        target: text,
        hold_id: text,
        call_id: text,
        detail: text,
      }),
      fc.record({ type: fc.constant('tool_call'), source: fc.constant('gate'), tool: text, ok: fc.boolean(), call_id: text, input_hash: hex }),
      fc.record({
        type: fc.constant('plan_loaded'),
        source: fc.constant('gate'),
        faults: fc.array(fc.nat(99), { maxLength: 100 }),
        detail: text,
        run_id: text.map((s) => s.slice(0, 100)),
      }),
    );
    fc.assert(
      fc.property(events, fc.nat(), (event, ts) => {
        const line = eventLine(event, ts);
        expect(line.endsWith('\n')).toBe(true);
        expect(Buffer.byteLength(line)).toBeLessThanOrEqual(MAX_EVENT_LINE_BYTES + 1);
        expect(chaosEventSchema.safeParse(JSON.parse(line)).error?.issues ?? []).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});
