// Comparing two runs: per probe, the pass-rate delta and whether it is beyond noise; the score delta
// likewise. Pure: snapshots in, comparison out.
//
// Method. A run has a few repetitions (1–20), too few for a normal-approximation test, so:
// - per probe: Fisher's exact test, two-sided, on the 2×2 table of passed / failed in run a and in
//   run b; the difference is beyond noise when p < 0.05. Exact at any sample size, never optimistic.
// - the score: beyond noise when the two runs' 95% score intervals do not overlap. Each interval
//   already assumes the worst case (see scoreRun), so this is conservative: a "beyond noise" here is
//   a real difference; an overlap may still hide one that more repetitions would show.
import type { Report } from '@intutic/report';
import { intervalsApart } from '@intutic/scoring';
import { historyProbeOf, type HistoryEntry, type HistoryProbe } from './entry.ts';

export const SIGNIFICANCE = 0.05;

export const METHOD =
  "per probe: Fisher's exact test (two-sided) on the passed/failed counts of the two runs, beyond noise when p < 0.05; " +
  "score: beyond noise when the runs' 95% score intervals do not overlap (conservative: those intervals assume the worst case)";

/** What a comparison needs of a run, from its report or from its history line. */
export interface RunSnapshot extends Pick<
  HistoryEntry,
  'run_id' | 'experiment' | 'commit' | 'sandbox_image' | 'finished_at' | 'verdict' | 'score' | 'score_interval' | 'faults' | 'probes' | 'report_path'
> {
  from: 'report' | 'history';
}

export function snapshotOfReport(report: Report): RunSnapshot {
  return {
    from: 'report',
    run_id: report.run.id,
    experiment: report.experiment.name,
    commit: report.run.commit,
    sandbox_image: report.run.sandbox_image,
    finished_at: report.run.finished_at,
    verdict: report.verdict,
    score: report.score,
    score_interval: report.score_interval,
    faults: report.experiment.faults.map((f) => f.id),
    probes: report.probes.map(historyProbeOf),
    report_path: report.report_path,
  };
}

export function snapshotOfEntry(entry: HistoryEntry): RunSnapshot {
  const { run_id, experiment, commit, sandbox_image, finished_at, verdict, score, score_interval, faults, probes, report_path } = entry;
  return { from: 'history', run_id, experiment, commit, sandbox_image, finished_at, verdict, score, score_interval, faults, probes, report_path };
}

function logFactorials(n: number): number[] {
  const table = [0];
  for (let i = 1; i <= n; i++) table.push(table[i - 1]! + Math.log(i));
  return table;
}

/**
 * Two-sided Fisher's exact test for passed1 of n1 against passed2 of n2: the probability, with the
 * margins fixed, of a table at most as likely as the one observed. null when either n is 0.
 */
export function fisherExact(passed1: number, n1: number, passed2: number, n2: number): number | null {
  if (n1 <= 0 || n2 <= 0) return null;
  const total = n1 + n2;
  const passes = passed1 + passed2;
  const lf = logFactorials(total);
  const logChoose = (n: number, k: number) => lf[n]! - lf[k]! - lf[n - k]!;
  const logP = (x: number) => logChoose(passes, x) + logChoose(total - passes, n1 - x) - logChoose(total, n1);
  const observed = logP(passed1);
  let p = 0;
  for (let x = Math.max(0, n1 - (total - passes)); x <= Math.min(n1, passes); x++) {
    const lp = logP(x);
    // Relative tolerance: tables as likely as the observed one must count despite rounding.
    if (lp <= observed + 1e-7) p += Math.exp(lp);
  }
  return Math.min(1, p);
}

export interface Side {
  passed: number;
  evaluated: number;
  rate: number | null;
}

export interface ProbeDelta {
  id: string;
  a: Side | null;
  b: Side | null;
  /** b's pass rate minus a's, 0–1 scale. */
  delta: number | null;
  p_value: number | null;
  /** null: cannot tell (the probe is missing from a run or evaluated nothing there). */
  beyond_noise: boolean | null;
  notes: string[];
}

export interface Comparison {
  a: RunSnapshot;
  b: RunSnapshot;
  probes: ProbeDelta[];
  score: { a: number | null; b: number | null; delta: number | null; beyond_noise: boolean | null; note: string };
  method: string;
  warnings: string[];
}

const side = (p: HistoryProbe | undefined): Side | null =>
  p === undefined ? null : { passed: p.passed, evaluated: p.evaluated, rate: p.evaluated === 0 ? null : p.passed / p.evaluated };

function probeDelta(id: string, pa: HistoryProbe | undefined, pb: HistoryProbe | undefined): ProbeDelta {
  const a = side(pa);
  const b = side(pb);
  const notes: string[] = [];
  if (!a) notes.push('only in run b');
  if (!b) notes.push('only in run a');
  if (pa && pb && pa.value !== pb.value) notes.push(`value differs: ${pa.value ?? 'none'} in a, ${pb.value ?? 'none'} in b`);
  if (pa && pb && pa.weight !== pb.weight) notes.push(`weight differs: ${pa.weight} in a, ${pb.weight} in b`);
  if (a?.rate === null) notes.push('not evaluated in run a');
  if (b?.rate === null) notes.push('not evaluated in run b');
  const p = a && b ? fisherExact(a.passed, a.evaluated, b.passed, b.evaluated) : null;
  return {
    id,
    a,
    b,
    delta: a?.rate != null && b?.rate != null ? b.rate - a.rate : null,
    p_value: p,
    beyond_noise: p === null ? null : p < SIGNIFICANCE,
    notes,
  };
}

function scoreDelta(a: RunSnapshot, b: RunSnapshot): Comparison['score'] {
  const delta = a.score !== null && b.score !== null ? b.score - a.score : null;
  if (a.score_interval === null || b.score_interval === null) {
    return { a: a.score, b: b.score, delta, beyond_noise: null, note: 'cannot tell: a run has no score interval' };
  }
  const apart = intervalsApart(a.score_interval, b.score_interval);
  return { a: a.score, b: b.score, delta, beyond_noise: apart, note: apart ? 'the 95% intervals do not overlap' : 'the 95% intervals overlap' };
}

export function compareRuns(a: RunSnapshot, b: RunSnapshot): Comparison {
  const warnings: string[] = [];
  if (a.experiment !== b.experiment)
    warnings.push(`the runs are of different experiments (${a.experiment} and ${b.experiment}): their probes measured different things`);
  else if (a.faults.join(',') !== b.faults.join(',')) warnings.push(`the runs injected different faults (${a.faults.join(', ')} and ${b.faults.join(', ')})`);
  if (a.run_id === b.run_id) warnings.push(`both sides are run ${a.run_id}`);
  for (const [name, run] of [
    ['a', a],
    ['b', b],
  ] as const) {
    if (run.verdict === 'invalid') warnings.push(`run ${name} (${run.run_id}) is invalid: its probes say nothing about resilience`);
    if (run.verdict === 'aborted') warnings.push(`run ${name} (${run.run_id}) was aborted: its rates cover only the repetitions reached`);
  }
  const byId = (run: RunSnapshot) => new Map(run.probes.map((p) => [p.id, p]));
  const pa = byId(a);
  const pb = byId(b);
  const ids = [...new Set([...pa.keys(), ...pb.keys()])];
  const probes = ids.map((id) => probeDelta(id, pa.get(id), pb.get(id)));
  if (probes.some((p) => p.notes.some((n) => n.startsWith('weight differs') || n.startsWith('only in'))))
    warnings.push('the score weighs different probes in the two runs');
  return { a, b, probes, score: scoreDelta(a, b), method: METHOD, warnings };
}
