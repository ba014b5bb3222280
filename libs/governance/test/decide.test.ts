import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decideEgress, decideToolCall, type Bypass, type GovernanceDecision, type Policy, type Rule, type ToolCallSubject } from '../src/index.ts';

interface Row<T> {
  name: string;
  rules: Rule[];
  bypasses: Bypass[];
  call: T;
  host: T;
  expect: Partial<GovernanceDecision>;
}
const fixture = JSON.parse(readFileSync(new URL('../../gates/conformance/decisions.json', import.meta.url), 'utf8')) as {
  tool_calls: Row<ToolCallSubject>[];
  egress: Row<string>[];
};
const policyOf = (row: Row<unknown>): Policy => ({
  rules: row.rules,
  bypasses: row.bypasses,
  sources: { snapshot: null, bypasses: null },
  missing: { snapshot: false },
});

function pick(actual: GovernanceDecision, expected: Partial<GovernanceDecision>): Partial<GovernanceDecision> {
  const keys: (keyof GovernanceDecision)[] = [
    'decision',
    'rule',
    'mode',
    'destructive',
    'bypass',
    'redactedInput',
    ...(expected.reason !== undefined ? (['reason'] as const) : []),
  ];
  return Object.fromEntries(keys.filter((k) => k in expected || actual[k] !== undefined).map((k) => [k, actual[k]]));
}

describe('decideToolCall (shared conformance table)', () => {
  it.each(fixture.tool_calls.map((r) => [r.name, r] as const))('%s', (_, row) => {
    expect(pick(decideToolCall(policyOf(row), row.call), row.expect)).toEqual(row.expect);
  });
});

describe('decideEgress (shared conformance table)', () => {
  it.each(fixture.egress.map((r) => [r.name, r] as const))('%s', (_, row) => {
    expect(pick(decideEgress(policyOf(row), row.host), row.expect)).toEqual(row.expect);
  });
});

describe('decisions always carry a reason', () => {
  it('every decision in the table explains itself', () => {
    for (const row of fixture.tool_calls) expect(decideToolCall(policyOf(row), row.call).reason.length).toBeGreaterThan(0);
  });
});
