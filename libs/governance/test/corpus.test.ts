// The destructive-command corpus (libs/gates/conformance/destructive-corpus.json, shared with the
// Python SDK's tests): commands and MCP tool calls an agent might write, in the families the tier
// must catch, and everyday or talking-about-it commands it must let through.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decideToolCall, EMPTY_POLICY, type DiskView } from '../src/index.ts';

interface Case {
  family: string;
  destructive: boolean;
  command?: string;
  tool?: string;
  input?: unknown;
  cwd?: string;
  home?: string;
  /** What a gate found on disk before deciding (links resolved, scripts read): see disk.ts. */
  disk?: DiskView;
}
const corpus = JSON.parse(readFileSync(new URL('../../gates/conformance/destructive-corpus.json', import.meta.url), 'utf8')) as {
  defaults: { cwd: string; home: string };
  cases: Case[];
};
const label = (c: Case): string => c.command ?? `${c.tool} ${JSON.stringify(c.input)}`;

function blocked(c: Case): boolean {
  const call = {
    tool: c.tool ?? 'Bash',
    input: c.command !== undefined ? { command: c.command } : c.input,
    cwd: c.cwd ?? corpus.defaults.cwd,
    home: c.home ?? corpus.defaults.home,
    ...(c.disk ? { disk: c.disk } : {}),
  };
  const d = decideToolCall(EMPTY_POLICY, call);
  return d.decision === 'block' && d.destructive;
}

describe('destructive corpus', () => {
  it('is large enough to mean something: 300+ destructive and 100+ benign cases, every family with 10+', () => {
    const destructive = corpus.cases.filter((c) => c.destructive);
    expect(destructive.length).toBeGreaterThanOrEqual(300);
    expect(corpus.cases.filter((c) => !c.destructive).length).toBeGreaterThanOrEqual(100);
    const perFamily = new Map<string, number>();
    for (const c of destructive) perFamily.set(c.family, (perFamily.get(c.family) ?? 0) + 1);
    for (const [family, n] of perFamily) expect({ family, n: n >= 10 }).toEqual({ family, n: true });
  });

  it.each(corpus.cases.map((c) => [label(c), c] as const))('%s', (_, c) => {
    expect(blocked(c)).toBe(c.destructive);
  });

  it('blocks at least 98% of the destructive cases and at most 1% of the benign ones', () => {
    const rate = (xs: Case[]): number => xs.filter(blocked).length / xs.length;
    expect(rate(corpus.cases.filter((c) => c.destructive))).toBeGreaterThanOrEqual(0.98);
    expect(rate(corpus.cases.filter((c) => !c.destructive))).toBeLessThanOrEqual(0.01);
  });
});
