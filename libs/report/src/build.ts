// Assemble a report from the run's facts and scoreRun's result. Pure: the caller reads the events
// and writes the file; this only decides what the journal says.
import type { Experiment } from '@intutic/experiment';
import type { RepetitionRecord, RunScore } from '@intutic/scoring';
import { REPORT_SCHEMA_VERSION, type Report, type ReportRepetition } from './schema.ts';

/** A repetition's record and what the report adds to it besides its scores. */
export interface RecordWithContext extends Pick<ReportRepetition, 'status' | 'started_at' | 'finished_at' | 'artifacts'> {
  record: RepetitionRecord;
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
  const repetitions: ReportRepetition[] = input.repetitions.map(({ record, ...context }) => {
    const s = scored.get(`${record.kind}:${record.index}`);
    return {
      ...record,
      ...context,
      cost_usd: s?.cost_usd ?? record.facts.cost_usd,
      cost_multiplier: s?.cost_multiplier ?? null,
      probes: Object.fromEntries(Object.entries(s?.probes ?? {}).map(([id, v]) => [id, v ?? null])),
      injections: s?.injections ?? 0,
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
    // scoreRun's outcomes are the report's (libs/scoring result.ts): embedded as they are, not renamed.
    probes: score.probes,
    faults_fired: score.faults_fired,
    baseline_cost_usd: score.baseline_cost_usd,
    malformed_event_lines: score.malformed_event_lines,
    warnings: [...new Set([...input.run.warnings, ...score.warnings])],
    report_path: input.reportPath,
    artifacts_dir: input.artifactsDir,
  };
}
