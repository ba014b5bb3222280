// scoreRun: repetition records in, the run's result out: per-repetition probe results, per-probe
// rates with intervals, the resilience score, the verdict and the warnings. Pure: no I/O, no clock.
import type { Experiment, NormalizedProbe } from '@intutic/experiment';
import { evaluateProbe, type ProbeResult } from './probes.ts';
import { injectionCount, type RepetitionRecord } from './records.ts';
import type { FaultFired, ProbeOutcome, RepetitionScore } from './result.ts';
import { passHatK, thresholdVerdict, wilson95, type Interval } from './stats.ts';
import { decideVerdict, failedBaseline, type VerdictKind } from './verdict.ts';
import { silenceWarnings } from './warnings.ts';

export interface RunScore {
  verdict: VerdictKind;
  verdict_reason: string;
  exit_code: number;
  /** 0–100, or null when no probe evaluated a repetition or the run is invalid. */
  score: number | null;
  /**
   * A conservative 95% interval for the score: the score formula applied to every probe's Wilson
   * lower bounds, and to its upper bounds. It assumes the probes' errors all go the same way (fully
   * correlated), so it is never narrower than the truth; independent probes would give a tighter one.
   */
  score_interval: Interval | null;
  probes: ProbeOutcome[];
  repetitions: RepetitionScore[];
  faults_fired: FaultFired[];
  /** Mean model cost of the baseline repetitions that ran without a runner error. */
  baseline_cost_usd: number | null;
  malformed_event_lines: number;
  complete: boolean;
  warnings: string[];
}

/**
 * Σ(weight × x) ÷ Σ(weight) × 100, rounded to 6 decimals: 3 × 0.8 is 2.4000000000000004 in floating
 * point, and a score of 85 must not print as 85.00000000000001.
 */
function weightedScore(parts: readonly { weight: number; x: number }[]): number {
  const total = parts.reduce((sum, p) => sum + p.weight, 0);
  const raw = (parts.reduce((sum, p) => sum + p.weight * p.x, 0) * 100) / total;
  return Math.round(raw * 1e6) / 1e6;
}

/** One probe over the scored repetitions: rate, interval, pass^k and the min_pass_rate verdict. */
export function summarizeProbe(probe: NormalizedProbe, results: readonly ProbeResult[]): ProbeOutcome {
  const evaluated = results.filter((x) => x !== null).length;
  const passed = results.filter((x) => x === true).length;
  return {
    id: probe.id,
    weight: probe.weight,
    value: probe.value ?? null,
    evaluated,
    passed,
    not_evaluated: results.length - evaluated,
    pass_rate: evaluated === 0 ? null : passed / evaluated,
    pass_k: evaluated === 0 ? null : passed === evaluated,
    pass_hat_k: passHatK(passed, evaluated),
    wilson95: wilson95(passed, evaluated),
    in_score: evaluated > 0,
    threshold: probe.min_pass_rate === undefined ? null : thresholdVerdict(passed, evaluated, probe.min_pass_rate),
  };
}

export function scoreRun(experiment: Experiment, records: readonly RepetitionRecord[], opts: { complete?: boolean } = {}): RunScore {
  // Baselines run first, then faulted repetitions, each in index order, whatever order the records came in.
  const ordered = [...records].sort((a, b) => (a.kind === b.kind ? a.index - b.index : a.kind === 'baseline' ? -1 : 1));
  const baselines = ordered.filter((r) => r.kind === 'baseline');
  // "the faulted repetitions are skipped" when a baseline failed verify: none of them is scored.
  const faulted = failedBaseline(ordered) === undefined ? ordered.filter((r) => r.kind === 'faulted') : [];
  const complete = opts.complete ?? (baselines.length >= experiment.repeat && ordered.length - baselines.length >= experiment.repeat);

  const costed = baselines.filter((r) => r.error === null);
  const baselineCostUsd = costed.length === 0 ? null : costed.reduce((sum, r) => sum + r.facts.cost_usd, 0) / costed.length;
  const ctx = { baselineCostUsd };

  const repetitions: RepetitionScore[] = ordered.map((r) => ({
    index: r.index,
    kind: r.kind,
    run_id: r.run_id,
    cost_usd: r.facts.cost_usd,
    cost_multiplier: r.kind === 'faulted' && baselineCostUsd ? r.facts.cost_usd / baselineCostUsd : null,
    injections: injectionCount(r.facts),
    probes: faulted.includes(r) ? Object.fromEntries(experiment.probes.map((p) => [p.id, evaluateProbe(r, p, ctx)])) : {},
  }));
  const scoredReps = repetitions.filter((_, i) => faulted.includes(ordered[i]!));

  const probes = experiment.probes.map((probe) =>
    summarizeProbe(
      probe,
      scoredReps.map((r) => r.probes[probe.id] ?? null),
    ),
  );

  const verdict = decideVerdict(ordered, complete);
  const counted = probes.filter((p) => p.in_score);
  const scorable = verdict.verdict !== 'invalid' && counted.length > 0;
  const score = scorable ? weightedScore(counted.map((p) => ({ weight: p.weight, x: p.pass_rate! }))) : null;
  const scoreInterval: Interval | null = scorable
    ? [
        weightedScore(counted.map((p) => ({ weight: p.weight, x: p.wilson95![0] }))),
        weightedScore(counted.map((p) => ({ weight: p.weight, x: p.wilson95![1] }))),
      ]
    : null;

  const faultsFired: FaultFired[] = experiment.faults.map((fault) => {
    const per = faulted.map((r) => ({ index: r.index, count: r.facts.injections.find((i) => i.fault_index === fault.index)?.count ?? 0 }));
    return {
      index: fault.index,
      id: fault.id,
      injections: per.reduce((sum, p) => sum + p.count, 0),
      repetitions: per.filter((p) => p.count > 0).map((p) => p.index),
    };
  });

  const warnings = silenceWarnings({
    experiment,
    records: ordered,
    faulted,
    baselineCostUsd,
    unevaluatedProbes: probes.filter((p) => !p.in_score).map((p) => p.id),
  });

  return {
    verdict: verdict.verdict,
    verdict_reason: verdict.reason,
    exit_code: verdict.exit_code,
    score,
    score_interval: scoreInterval,
    probes,
    repetitions,
    faults_fired: faultsFired,
    baseline_cost_usd: baselineCostUsd,
    malformed_event_lines: ordered.reduce((sum, r) => sum + r.malformed_event_lines, 0),
    complete,
    warnings,
  };
}
