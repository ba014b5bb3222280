// Assemble a report from the run's facts and scoreRun's result. Pure: the caller reads the events
// and writes the file; this only decides what the journal says.
import type { Experiment } from '@intutic/experiment';
import type { RepetitionRecord, RunScore } from '@intutic/scoring';
import { REPORT_SCHEMA_VERSION, type Report, type ReportRepetition } from './schema.ts';

export interface RecordWithContext {
  record: RepetitionRecord;
  status: ReportRepetition['status'];
  started_at: string | null;
  finished_at: string | null;
  artifacts: ReportRepetition['artifacts'];
}

export interface ReportInput {
  version: string;
  run: Report['run'];
  experiment: Experiment;
  repetitions: readonly RecordWithContext[];
  skipped: Report['skipped'];
  score: RunScore;
  reportPath: string;
  artifactsDir: string;
}

export function buildReport(input: ReportInput): Report {
  const { score } = input;
  const scored = new Map(score.repetitions.map((r) => [`${r.kind}:${r.index}`, r]));
  const repetitions: ReportRepetition[] = input.repetitions.map(({ record, status, started_at, finished_at, artifacts }) => {
    const s = scored.get(`${record.kind}:${record.index}`);
    return {
      index: record.index,
      kind: record.kind,
      status,
      run_id: record.run_id,
      canary: record.canary,
      agent_exit_code: record.agent_exit_code,
      verify_exit_code: record.verify_exit_code,
      cost_usd: s?.cost_usd ?? record.facts.cost_usd,
      cost_multiplier: s?.cost_multiplier ?? null,
      duration_s: record.duration_s,
      stdout_contains_canary: record.stdout_contains_canary,
      probes: Object.fromEntries(Object.entries(s?.probes ?? {}).map(([id, v]) => [id, v ?? null])),
      injections: s?.injections ?? 0,
      abort: record.abort,
      error: record.error,
      malformed_event_lines: record.malformed_event_lines,
      started_at,
      finished_at,
      artifacts,
      facts: record.facts,
    };
  });
  repetitions.sort((a, b) => (a.kind === b.kind ? a.index - b.index : a.kind === 'baseline' ? -1 : 1));
  return {
    schema_version: REPORT_SCHEMA_VERSION,
    generator: { name: 'intutic', version: input.version },
    run: input.run,
    experiment: input.experiment,
    verdict: score.verdict,
    verdict_reason: score.verdict_reason,
    exit_code: score.exit_code,
    score: score.score,
    score_interval: score.score_interval,
    complete: score.complete,
    repetitions,
    skipped: input.skipped,
    probes: score.probes.map((p) => ({
      id: p.id,
      weight: p.weight,
      value: p.value,
      evaluated: p.evaluated,
      passed: p.passed,
      not_evaluated: p.not_evaluated,
      pass_rate: p.pass_rate,
      pass_k: p.all_passed,
      pass_hat_k: p.pass_hat_k,
      wilson95: p.wilson95,
      in_score: p.in_score,
      threshold: p.threshold,
    })),
    faults_fired: score.faults_fired,
    baseline_cost_usd: score.baseline_cost_usd,
    malformed_event_lines: score.malformed_event_lines,
    warnings: [...new Set([...input.run.warnings, ...score.warnings])],
    report_path: input.reportPath,
    artifacts_dir: input.artifactsDir,
  };
}
