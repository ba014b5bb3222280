// What every rendering says the same way: numbers (percent, interval, dollars), a probe's label and
// its min_pass_rate verdict, and the evidence behind one probe result in one repetition — what the
// probe saw, read from the repetition's facts, never from the events again. Plain text, unescaped:
// each renderer escapes for its own format.
import type { z } from 'zod';
import { thresholdVerdictSchema } from '@intutic/scoring';
import type { Report, ReportProbe, ReportRepetition } from '../schema.ts';

export const percent = (x: number): string => `${Math.round(x * 1000) / 10}%`;
export const oneDecimal = (x: number): string => String(Math.round(x * 10) / 10);
export const usd = (x: number): string => `$${x.toFixed(4)}`;

export function intervalText(interval: readonly [number, number] | null, as: 'percent' | 'score'): string {
  if (interval === null) return 'n/a';
  const f = as === 'percent' ? percent : oneDecimal;
  return `${f(interval[0])}–${f(interval[1])}`;
}

export function scoreText(report: Report): string {
  return report.score === null ? 'n/a' : oneDecimal(report.score);
}

export function probeLabel(probe: Pick<ReportProbe, 'id' | 'value'>): string {
  return probe.value === null ? probe.id : `${probe.id} (${probe.value})`;
}

export function passRateText(probe: ReportProbe): string {
  return probe.pass_rate === null ? 'n/a' : percent(probe.pass_rate);
}

/** pass^k for every k, e.g. "k=1 67%, k=2 33%, k=3 0%". */
export function passHatKText(probe: ReportProbe): string {
  return probe.pass_hat_k.length === 0 ? 'n/a' : probe.pass_hat_k.map((v, i) => `k=${i + 1} ${percent(v)}`).join(', ');
}

/** scoring's min_pass_rate verdict, read leniently: older reports may lack the count and the note. */
const thresholdSchema = thresholdVerdictSchema.partial({ more_repetitions: true, note: true });
export type ProbeThreshold = z.infer<typeof thresholdSchema>;

/** The report keeps scoring's min_pass_rate verdict as it came; read it defensively. */
export function probeThreshold(probe: ReportProbe): ProbeThreshold | null {
  const parsed = thresholdSchema.safeParse(probe.threshold);
  return parsed.success ? parsed.data : null;
}

export function thresholdText(probe: ReportProbe): string {
  const t = probeThreshold(probe);
  if (t === null) return '';
  const more =
    t.verdict === 'inconclusive' && t.more_repetitions ? ` (${t.more_repetitions} more repetition${t.more_repetitions === 1 ? '' : 's'} would settle it)` : '';
  return `${t.verdict} at min ${percent(t.min_pass_rate)}${more}`;
}

/** A faulted repetition's result for one probe: missing means scoring never evaluated it. */
export function probeResult(rep: ReportRepetition, probeId: string): boolean | null {
  return rep.probes[probeId] ?? null;
}

/** Why a probe gave no result in a repetition, in the spec's words. */
export function notEvaluatedReason(report: Report, rep: ReportRepetition, probeId: string): string {
  if (rep.status === 'failed' || rep.error !== null) return `the repetition failed: ${rep.error ?? 'its job failed'}`;
  if (!(probeId in rep.probes)) return 'the repetition was not scored';
  switch (probeId) {
    case 'task_success':
      return rep.abort ? `verify was skipped: the repetition was aborted (${rep.abort.condition})` : 'verify did not run';
    case 'failure_surfaced':
    case 'recovered_within':
      return 'no fault fired in this repetition';
    case 'cost_multiplier_below':
      return report.baseline_cost_usd === null ? 'no baseline cost is known' : 'the baseline cost was 0';
    case 'retry_after_respected':
      return 'no 429 was injected';
    case 'no_tight_loop':
      return 'no tool call or gate decision carried an input hash';
    default:
      return 'not evaluated';
  }
}

/** What the probe saw in this repetition, as a sentence: the heart of a failure's evidence. */
export function probeObservation(report: Report, rep: ReportRepetition, probe: Pick<ReportProbe, 'id' | 'value'>): string {
  const f = rep.facts;
  switch (probe.id) {
    case 'task_success':
      return rep.verify_exit_code === null ? 'verify did not run' : `verify exited ${rep.verify_exit_code}`;
    case 'failure_surfaced':
      return `the agent's stdout ${rep.stdout_contains_canary ? 'contains' : 'does not contain'} the canary ${rep.canary} (${rep.injections} injection${rep.injections === 1 ? '' : 's'})`;
    case 'no_destructive_attempt':
      return f.destructive.count === 0
        ? 'no gate decision marked a call destructive'
        : `${f.destructive.count} call(s) marked destructive; first: ${f.destructive.first?.tool ?? '?'}${f.destructive.first?.reason ? ` (${f.destructive.first.reason})` : ''}`;
    case 'no_policy_hits':
      return f.policy_hits.count === 0
        ? 'no enforce-mode rule fired'
        : `${f.policy_hits.count} enforce-mode rule hit(s); first: rule ${f.policy_hits.first?.rule ?? '?'} ${f.policy_hits.first?.decision ?? ''} on ${f.policy_hits.first?.tool ?? '?'}`;
    case 'cost_multiplier_below':
      return rep.cost_multiplier === null
        ? `cost ${usd(rep.cost_usd)}; no baseline cost to compare with`
        : `cost ${usd(rep.cost_usd)} is ${rep.cost_multiplier.toFixed(2)}× the mean baseline cost ${usd(report.baseline_cost_usd ?? 0)} (must be below ${probe.value ?? '?'}×)`;
    case 'recovered_within': {
      const r = f.recovery;
      if (r === null) return 'no fault fired';
      const scope = r.any_tool ? 'any tool' : `tool ${r.target}`;
      return r.recovered
        ? `after ${r.fault_id} on ${r.target}, a successful call on ${scope} came at call ${r.calls} (limit ${probe.value ?? '?'})`
        : `after ${r.fault_id} on ${r.target}, no successful call on ${scope} followed (${r.calls} call(s) seen)`;
    }
    case 'retry_after_respected': {
      const r = f.rate_limits;
      if (r.injected === 0) return 'no 429 was injected';
      const first = r.first_too_soon ? `; first retry after ${r.first_too_soon.waited_s}s of the ${r.first_too_soon.retry_after_s}s asked` : '';
      return `${r.too_soon} of ${r.injected} injected 429(s) were followed by a model call too soon${first}`;
    }
    case 'no_tight_loop': {
      const r = f.identical_calls;
      return `at most ${r.max_within_10s} identical call(s) within 10 s${r.worst ? ` (${r.worst.tool}, ${r.worst.count}×)` : ''}; limit ${probe.value ?? '?'}`;
    }
    default:
      return 'the report records no detail for this probe';
  }
}

/** Every fact a failure or error carries, one "name: value" line each. */
export function repetitionEvidence(report: Report, rep: ReportRepetition, probe: Pick<ReportProbe, 'id' | 'value'>): string[] {
  const lines = [`probe ${probeLabel(probe)}: ${probeObservation(report, rep, probe)}`];
  lines.push(`run id: ${rep.run_id}`, `canary: ${rep.canary}`);
  if (rep.abort) lines.push(`abort: ${rep.abort.condition}: ${rep.abort.detail}`);
  if (rep.error) lines.push(`error: ${rep.error}`);
  lines.push(`agent exit: ${rep.agent_exit_code ?? 'n/a'}, verify exit: ${rep.verify_exit_code ?? 'n/a'}`);
  lines.push(
    `cost: ${usd(rep.cost_usd)}${rep.cost_multiplier === null ? '' : ` (${rep.cost_multiplier.toFixed(2)}× baseline)`}, ${rep.facts.llm_calls} model call(s), ${rep.facts.tool_calls} tool call(s)`,
  );
  lines.push(`injections: ${rep.injections}`, `duration: ${rep.duration_s.toFixed(1)} s`);
  lines.push(`events: ${rep.artifacts.events}`, `agent output: ${rep.artifacts.agent_output}`);
  return lines;
}

export function faultedRepetitions(report: Report): ReportRepetition[] {
  return report.repetitions.filter((r) => r.kind === 'faulted').sort((a, b) => a.index - b.index);
}

export function totalCost(report: Report): number {
  return report.repetitions.reduce((sum, r) => sum + r.cost_usd, 0);
}
