import { describe, expect, it } from 'vitest';
import { compareRuns, fisherExact, renderComparison, snapshotOfEntry, snapshotOfReport, entryOfReport, METHOD } from '../src/index.ts';
import { fixtureReport } from '@intutic/report/testing';

const PROBES = [
  { id: 'failure_surfaced' as const, weight: 3 },
  { id: 'task_success' as const, weight: 1 },
];

const rep = (surfaced: boolean, success: boolean) => ({ probes: { failure_surfaced: surfaced, task_success: success } });

describe("Fisher's exact test (two-sided)", () => {
  it('matches hand-computed values', () => {
    // Fisher's tea tasting, 3/4 against 1/4: (1 + 16 + 16 + 1) / 70 = 0.4857.
    expect(fisherExact(3, 4, 1, 4)).toBeCloseTo(34 / 70, 10);
    // 0/5 against 5/5: only the two extreme tables, each 1 / C(10,5) = 1/252.
    expect(fisherExact(0, 5, 5, 5)).toBeCloseTo(2 / 252, 12);
    // 10/10 against 0/10: 2 / C(20,10).
    expect(fisherExact(10, 10, 0, 10)).toBeCloseTo(2 / 184756, 15);
    // 2/3 against 3/3: both possible tables are as likely (10/20 each): p = 1.
    expect(fisherExact(2, 3, 3, 3)).toBeCloseTo(1, 12);
    // Equal rates: the observed table is the most likely one, so every table counts: p = 1.
    expect(fisherExact(4, 8, 4, 8)).toBeCloseTo(1, 12);
    // 1/6 against 6/6, summed by hand from the hypergeometric P(x) = C(7,x)·C(5,6−x) / C(12,6).
    const pOf = (x: number) => (choose(7, x) * choose(5, 6 - x)) / choose(12, 6);
    const observed = pOf(1);
    const expected = [1, 2, 3, 4, 5, 6]
      .map(pOf)
      .filter((p) => p <= observed * (1 + 1e-9))
      .reduce((s, p) => s + p, 0);
    expect(fisherExact(1, 6, 6, 6)).toBeCloseTo(expected, 12);
    expect(fisherExact(1, 0, 1, 1)).toBeNull();
  });
});

function choose(n: number, k: number): number {
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return r;
}

describe('compareRuns', () => {
  const before = fixtureReport({ runId: 'run-a', probes: PROBES, faulted: Array.from({ length: 6 }, () => rep(false, true)) });
  const after = fixtureReport({ runId: 'run-b', probes: PROBES, faulted: Array.from({ length: 6 }, (_, i) => rep(true, i !== 0)) });

  it('gives per-probe deltas, says which are beyond noise, and the score delta', () => {
    const c = compareRuns(snapshotOfReport(before), snapshotOfReport(after));
    const surfaced = c.probes.find((p) => p.id === 'failure_surfaced')!;
    expect(surfaced).toMatchObject({ a: { passed: 0, evaluated: 6, rate: 0 }, b: { passed: 6, evaluated: 6, rate: 1 }, delta: 1, beyond_noise: true });
    expect(surfaced.p_value).toBeCloseTo(2 / 924, 12); // 2 / C(12,6)
    const success = c.probes.find((p) => p.id === 'task_success')!;
    expect(success.delta).toBeCloseTo(-1 / 6, 12);
    expect(success.p_value).toBeCloseTo(1, 12);
    expect(success.beyond_noise).toBe(false);
    // Scores: a = (0·3 + 1·1)/4 = 25, b = (3·1 + 1·5/6)/4 = 95.83.
    expect(c.score.a).toBe(25);
    expect(c.score.b).toBeCloseTo(95.833333, 5);
    expect(c.score.beyond_noise).toBe(true);
    expect(c.warnings).toEqual([]);
    expect(c.method).toBe(METHOD);
  });

  it('calls small differences noise and warns about runs of different experiments', () => {
    const other = fixtureReport({ name: 'credential-revoked', runId: 'run-c', probes: PROBES, faulted: [rep(true, true), rep(false, true), rep(true, true)] });
    const c = compareRuns(snapshotOfReport(before), snapshotOfReport(other));
    expect(c.warnings[0]).toBe('the runs are of different experiments (registry-down and credential-revoked): their probes measured different things');
    expect(c.probes.every((p) => p.beyond_noise === false)).toBe(true);
    expect(c.score.beyond_noise).toBe(false);
  });

  it('says it cannot tell when a probe is missing or evaluated nothing, and notes changed values', () => {
    const withCost = fixtureReport({ runId: 'run-d', probes: [...PROBES, { id: 'cost_multiplier_below', weight: 2, value: 3 }], faulted: [rep(true, true)] });
    withCost.probes[2]!.value = 3;
    const c = compareRuns(snapshotOfReport(before), snapshotOfReport(withCost));
    const cost = c.probes.find((p) => p.id === 'cost_multiplier_below')!;
    expect(cost).toMatchObject({ a: null, beyond_noise: null, notes: ['only in run b', 'not evaluated in run b'] });
    expect(c.warnings).toContain('the score weighs different probes in the two runs');
  });

  it('renders a table with the method and the warnings, from a report or a history record alike', () => {
    const text = renderComparison(compareRuns(snapshotOfEntry(entryOfReport(before, new Date('2025-03-02T00:00:00Z'))), snapshotOfReport(after)));
    expect(text).toContain(
      'a: run-a  registry-down, scored, finished 2025-03-01 10:12:00Z, commit 0123456789ab, image my-agent-sandbox [from the history: the report is gone]',
    );
    expect(text).toMatch(/failure_surfaced\s+0\/6 0%\s+6\/6 100%\s+\+100 pp\s+0\.002\s+YES/);
    expect(text).toMatch(/task_success\s+6\/6 100%\s+5\/6 83\.3%\s+−16\.7 pp\s+1\.000\s+no/);
    expect(text).toMatch(/score\s+25 \[[\d.]+–[\d.]+\]\s+95\.8 \[[\d.]+–[\d.]+\]\s+\+70\.8\s+—\s+YES \(the 95% intervals do not overlap\)/);
    expect(text).toContain("method: per probe: Fisher's exact test (two-sided)");
  });
});
