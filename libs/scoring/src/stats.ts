// The statistics a run of a few repetitions can honestly support: Wilson 95% intervals (sound at
// small n and at rates of 0 or 1, unlike the normal approximation), the unbiased pass^k estimator
// (tau-bench), and a min_pass_rate verdict that says "inconclusive" while the interval straddles it.
import { z } from 'zod';

/** The two-sided 95% standard normal quantile. */
export const Z95 = 1.959963984540054;

export const intervalSchema = z.tuple([z.number(), z.number()]);
export type Interval = z.infer<typeof intervalSchema>;

/** Wilson score interval for `passed` of `n` at 95%; `passed` may be fractional (a projected rate). */
export function wilson95(passed: number, n: number): Interval | null {
  if (n <= 0) return null;
  const p = passed / n;
  const z2 = Z95 * Z95;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (Z95 / denominator) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/**
 * pass^k for k = 1..n: the chance that k repetitions drawn without replacement all passed,
 * C(c,k)/C(n,k), the unbiased estimator of p^k. Computed as a product so no factorial overflows.
 */
export function passHatK(passed: number, n: number): number[] {
  const out: number[] = [];
  let value = 1;
  for (let k = 1; k <= n; k++) {
    value *= Math.max(0, passed - (k - 1)) / (n - (k - 1));
    out.push(value);
  }
  return out;
}

/** More repetitions than this are not worth suggesting: a run holds at most 20. */
export const MAX_EXTRA_REPETITIONS = 1000;

/** pass: the whole interval is at or above the threshold; fail: wholly below; else inconclusive. */
export const THRESHOLD_VERDICTS = ['pass', 'fail', 'inconclusive'] as const;
export type ThresholdVerdictKind = (typeof THRESHOLD_VERDICTS)[number];

export const thresholdVerdictSchema = z.object({
  min_pass_rate: z.number(),
  verdict: z.enum(THRESHOLD_VERDICTS),
  /** When inconclusive: the fewest extra repetitions at the current pass rate that would settle it. */
  more_repetitions: z.number().int().positive().nullable(),
  note: z.string(),
});
export type ThresholdVerdict = z.infer<typeof thresholdVerdictSchema>;

function settles(lo: number, hi: number, threshold: number): Exclude<ThresholdVerdictKind, 'inconclusive'> | null {
  if (lo >= threshold) return 'pass';
  if (hi < threshold) return 'fail';
  return null;
}

export function thresholdVerdict(passed: number, n: number, threshold: number): ThresholdVerdict {
  const base = { min_pass_rate: threshold };
  const interval = wilson95(passed, n);
  if (interval === null) {
    return { ...base, verdict: 'inconclusive', more_repetitions: null, note: 'not evaluated in any repetition' };
  }
  const settled = settles(interval[0], interval[1], threshold);
  if (settled !== null) {
    const side = settled === 'pass' ? 'at or above' : 'below';
    return { ...base, verdict: settled, more_repetitions: null, note: `the 95% interval lies ${side} ${threshold}` };
  }
  const rate = passed / n;
  for (let extra = 1; extra <= MAX_EXTRA_REPETITIONS; extra++) {
    const projected = wilson95(rate * (n + extra), n + extra)!;
    if (settles(projected[0], projected[1], threshold) !== null) {
      return {
        ...base,
        verdict: 'inconclusive',
        more_repetitions: extra,
        note: `the 95% interval straddles ${threshold}; ${extra} more repetition${extra === 1 ? '' : 's'} at the current pass rate would settle it`,
      };
    }
  }
  const why =
    rate === threshold
      ? 'the pass rate equals the threshold, so no number of repetitions at this rate settles it'
      : `more than ${MAX_EXTRA_REPETITIONS} more repetitions at the current pass rate would be needed`;
  return { ...base, verdict: 'inconclusive', more_repetitions: null, note: `the 95% interval straddles ${threshold}; ${why}` };
}

/**
 * The noise test `chaos compare` and the suite matrix share for scores: two 95% intervals that do not
 * overlap. Conservative (each score interval already assumes the worst case): "apart" is a real
 * difference; an overlap may still hide one that more repetitions would show. null: cannot tell.
 */
export function intervalsApart(a: Interval | null, b: Interval | null): boolean | null {
  if (a === null || b === null) return null;
  return a[1] < b[0] || b[1] < a[0];
}
