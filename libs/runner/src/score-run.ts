// The scoring job and `chaos score`: observe every repetition's events file (streamed, constant
// memory; in parallel threads for long runs, see observe.ts), build the records, call the pure
// scoreRun, and write the report. A repetition whose job failed (its worker died) is still a record,
// with the failure as its error, so the report says what happened instead of leaving it out. Every
// finished run is then recorded in the history (<home>/history.jsonl); a history that cannot be
// written is logged, never fatal: the report is what the run owes the user.
import type { Experiment } from '@intutic/experiment';
import { type JobView, type RepetitionOutcome, type RunPayload, type RunResult, type ScoreContext } from '@intutic/queue';
import { artifactsDirFor, buildReport, writeReport, type RecordWithContext, type Report } from '@intutic/report';
import { repetitionRunOf, scoreRun, type RepetitionRecord } from '@intutic/scoring';
import { recordRun } from '@intutic/history';
import { intuticHome, planCarryIn } from '@intutic/workspace';
import { observeAll, type Observation } from './observe.ts';
import { artifactPaths } from './paths.ts';

function recordOfOutcome(outcome: RepetitionOutcome, { facts, malformed }: Observation): RecordWithContext {
  return {
    status: 'ran',
    started_at: outcome.started_at,
    finished_at: outcome.finished_at,
    artifacts: outcome.artifacts,
    record: { ...repetitionRunOf(outcome), malformed_event_lines: malformed, facts },
  };
}

function recordOfFailedJob(job: JobView, payload: RunPayload, { facts, malformed }: Observation): RecordWithContext {
  const kind = job.kind === 'faulted' ? 'faulted' : 'baseline';
  const artifacts = artifactPaths(payload.report_path, kind, job.index);
  const duration = job.started_at && job.finished_at ? (job.finished_at - job.started_at) / 1000 : 0;
  return {
    status: 'failed',
    started_at: job.started_at ? new Date(job.started_at).toISOString() : null,
    finished_at: job.finished_at ? new Date(job.finished_at).toISOString() : null,
    artifacts,
    record: {
      index: job.index,
      kind,
      run_id: job.progress?.run_id ?? job.id,
      canary: job.progress?.canary ?? '',
      agent_exit_code: null,
      verify_exit_code: null,
      duration_s: Math.max(0, duration),
      stdout_contains_canary: false,
      abort: null,
      error: `the repetition's job failed: ${job.failed_reason ?? 'unknown reason'}`,
      malformed_event_lines: malformed,
      facts,
    },
  };
}

export interface ScoreDeps {
  version: string;
  /** The intutic home whose history records the run; default INTUTIC_HOME or ~/.intutic. */
  home?: string;
}

export async function scoreRunJob(ctx: ScoreContext, deps: ScoreDeps): Promise<RunResult> {
  const { payload } = ctx;
  const repetitions: RecordWithContext[] = [];
  const skipped: Report['skipped'] = [];
  const warnings = [...payload.carry_in.warnings];
  const eventsFileOf = (job: JobView): string | null => {
    if (job.state === 'failed') return artifactPaths(payload.report_path, job.kind === 'faulted' ? 'faulted' : 'baseline', job.index).events;
    return job.result?.status === 'ran' && job.result.outcome ? job.result.outcome.artifacts.events : null;
  };
  const observed = await observeAll(
    ctx.repetitions.map(eventsFileOf).filter((p): p is string => p !== null),
    payload.experiment,
  );
  if (observed.threads > 0) await ctx.log(`events observed in ${observed.threads} threads`);
  const observations = observed.observations.values();
  for (const job of ctx.repetitions) {
    const kind = job.kind === 'faulted' ? 'faulted' : 'baseline';
    if (job.state === 'failed') repetitions.push(recordOfFailedJob(job, payload, observations.next().value!));
    else if (job.result?.status === 'ran' && job.result.outcome) {
      repetitions.push(recordOfOutcome(job.result.outcome, observations.next().value!));
      warnings.push(...job.result.outcome.warnings.map((w) => `${kind} repetition ${job.index}: ${w}`));
    } else skipped.push({ index: job.index, kind, reason: job.result?.stop?.reason ?? ctx.stop?.reason ?? `its job is ${job.state}` });
  }
  const complete = repetitions.length === ctx.repetitions.length && repetitions.every((r) => r.status === 'ran');
  const score = scoreRun(
    payload.experiment,
    repetitions.map((r) => r.record),
    { complete },
  );
  const report = buildReport({
    version: deps.version,
    run: {
      id: payload.run_id,
      experiment_file: payload.experiment_file,
      commit: payload.commit,
      repo_path: payload.repo.path,
      remote: payload.repo.remote,
      sandbox_image: payload.sandbox_image,
      created_at: payload.created_at,
      finished_at: new Date().toISOString(),
      carried_in: planCarryIn(payload.carry_in),
      warnings: [...new Set(warnings)],
    },
    experiment: payload.experiment,
    repetitions,
    skipped,
    score,
    reportPath: payload.report_path,
    artifactsDir: artifactsDirFor(payload.report_path),
  });
  await writeReport(report);
  await ctx.log(`report written to ${payload.report_path}: ${report.verdict}${report.score === null ? '' : `, score ${report.score}`}`);
  const home = deps.home ?? intuticHome(process.env);
  try {
    await recordRun(report, { home });
    await ctx.log(`recorded in the run history under ${home}`);
  } catch (error) {
    await ctx.log(`warning: the run could not be recorded in the history under ${home}: ${(error as Error).message}`);
  }
  return { verdict: report.verdict, score: report.score, report_path: payload.report_path, report };
}

/**
 * `chaos score`: the same scoring over a finished run's artifacts, with the report's experiment or a
 * changed one (new weights, probes). Runs nothing. Facts come from the events files; a repetition
 * whose events file is gone keeps the facts the report recorded, and a warning says so.
 */
export async function rescoreReport(report: Report, experiment: Experiment = report.experiment, options: { reportPath?: string } = {}): Promise<Report> {
  const warnings: string[] = [];
  const repetitions: RecordWithContext[] = [];
  const { observations } = await observeAll(
    report.repetitions.map((rep) => rep.artifacts.events),
    experiment,
  );
  for (const [i, rep] of report.repetitions.entries()) {
    const observed = observations[i]!;
    if (!observed.found) warnings.push(`${rep.kind} repetition ${rep.index}: ${rep.artifacts.events} is missing; its recorded facts were used`);
    const record: RepetitionRecord = {
      ...repetitionRunOf(rep),
      malformed_event_lines: observed.found ? observed.malformed : rep.malformed_event_lines,
      facts: observed.found ? observed.facts : rep.facts,
    };
    repetitions.push({ record, status: rep.status, started_at: rep.started_at, finished_at: rep.finished_at, artifacts: rep.artifacts });
  }
  const score = scoreRun(
    experiment,
    repetitions.map((r) => r.record),
    { complete: report.complete },
  );
  return buildReport({
    version: report.generator.version,
    run: { ...report.run, warnings: [...report.run.warnings.filter((w) => !w.includes('recorded facts were used')), ...warnings] },
    experiment,
    repetitions,
    skipped: report.skipped,
    score,
    reportPath: options.reportPath ?? report.report_path,
    artifactsDir: report.artifacts_dir,
  });
}
