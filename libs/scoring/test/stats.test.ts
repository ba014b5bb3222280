// Every statistic against values worked out by hand from its formula (Wilson: centre
// (p + z²/2n)/(1 + z²/n), half-width z/(1 + z²/n)·√(p(1−p)/n + z²/4n²), z = 1.959964).
import { describe, expect, it } from 'vitest';
import { passHatK, thresholdVerdict, wilson95, MAX_EXTRA_REPETITIONS } from '../src/index.ts';

describe('Wilson 95% interval (issue 9: "a Wilson 95% interval for every probe\'s pass rate")', () => {
  it.each([
    // passed, n, lo, hi
    [8, 10, 0.490162, 0.943318],
    [4, 5, 0.375535, 0.963776],
    [0, 5, 0, 0.434482],
    [5, 5, 0.565518, 1],
    [1, 2, 0.094531, 0.905469],
    [3, 3, 0.438503, 1],
    [1, 1, 0.206549, 1],
    [0, 1, 0, 0.793451],
    [7, 10, 0.396778, 0.892209],
  ])('%i of %i -> [%f, %f]', (passed, n, lo, hi) => {
    const [l, h] = wilson95(passed, n)!;
    expect(l).toBeCloseTo(lo, 6);
    expect(h).toBeCloseTo(hi, 6);
  });

  it('is null for no evaluated repetition', () => {
    expect(wilson95(0, 0)).toBeNull();
  });
});

describe('pass^k (issue 9: "the unbiased estimator … C(c,k)/C(n,k)")', () => {
  it.each([
    [4, 5, [4 / 5, 6 / 10, 4 / 10, 1 / 5, 0]],
    [2, 4, [2 / 4, 1 / 6, 0, 0]],
    [3, 3, [1, 1, 1]],
    [0, 2, [0, 0]],
    [7, 10, [7 / 10, 21 / 45, 35 / 120, 35 / 210, 21 / 252, 7 / 210, 1 / 120, 0, 0, 0]],
  ])('%i of %i', (passed, n, expected) => {
    const got = passHatK(passed, n);
    expect(got).toHaveLength(n);
    expected.forEach((v, i) => expect(got[i]).toBeCloseTo(v, 12));
  });

  it('is empty with no repetitions', () => {
    expect(passHatK(0, 0)).toEqual([]);
  });
});

describe('min_pass_rate (issue 9: "a per-probe verdict of pass / fail / inconclusive and, when inconclusive, how many more repetitions would settle it")', () => {
  it('passes when the whole interval is at or above the threshold: 5/5 has [0.5655, 1] ≥ 0.5', () => {
    expect(thresholdVerdict(5, 5, 0.5)).toMatchObject({ verdict: 'pass', more_repetitions: null });
  });

  it('fails when the whole interval is below the threshold: 0/5 has [0, 0.4345] < 0.5', () => {
    expect(thresholdVerdict(0, 5, 0.5)).toMatchObject({ verdict: 'fail', more_repetitions: null });
  });

  it('is inconclusive while the interval straddles it: 8/10 has [0.4902, 0.9433] around 0.5; one more at 0.8 gives n = 11 and lo = 0.5045 ≥ 0.5', () => {
    const v = thresholdVerdict(8, 10, 0.5);
    expect(v).toMatchObject({ verdict: 'inconclusive', more_repetitions: 1 });
    expect(v.note).toContain('1 more repetition at the current pass rate');
    expect(wilson95(0.8 * 11, 11)![0]).toBeCloseTo(0.504536, 6);
  });

  it.each([
    // passed, n, threshold, extra repetitions at the same rate (checked: the interval at n + extra clears, at n + extra - 1 does not)
    [3, 4, 0.5, 12],
    [1, 4, 0.5, 12],
    [5, 5, 0.9, 30],
    [9, 10, 0.7, 11],
    [7, 10, 0.6, 83],
  ])('%i of %i against %f needs %i more', (passed, n, threshold, extra) => {
    expect(thresholdVerdict(passed, n, threshold)).toMatchObject({ verdict: 'inconclusive', more_repetitions: extra });
    const rate = passed / n;
    const settled = ([lo, hi]: [number, number]) => lo >= threshold || hi < threshold;
    expect(settled(wilson95(rate * (n + extra), n + extra)!)).toBe(true);
    expect(settled(wilson95(rate * (n + extra - 1), n + extra - 1)!)).toBe(false);
  });

  it('says so when no number of repetitions at the current rate settles it (rate equal to the threshold)', () => {
    const v = thresholdVerdict(1, 2, 0.5);
    expect(v).toMatchObject({ verdict: 'inconclusive', more_repetitions: null });
    expect(v.note).toContain('equals the threshold');
  });

  it(`caps the suggestion at ${MAX_EXTRA_REPETITIONS} more repetitions and says so`, () => {
    const v = thresholdVerdict(51, 100, 0.5);
    expect(v).toMatchObject({ verdict: 'inconclusive', more_repetitions: null });
    expect(v.note).toContain(`more than ${MAX_EXTRA_REPETITIONS} more repetitions`);
  });

  it('is inconclusive without a settling count when the probe evaluated nothing', () => {
    expect(thresholdVerdict(0, 0, 0.5)).toMatchObject({ verdict: 'inconclusive', more_repetitions: null, note: 'not evaluated in any repetition' });
  });
});
