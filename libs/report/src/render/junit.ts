// The JUnit XML view of one or more reports, for CI test pages (Jenkins, GitLab, GitHub actions that
// read Ant-style JUnit). One testsuite per experiment run; in it one testcase per probe per faulted
// repetition, named `rep-<n>.<probe>`:
//   passed -> an empty testcase; failed -> <failure> carrying the evidence (what the probe saw, the
//   abort, the error, the cost, where the artifacts are); not evaluated -> <skipped> with the reason,
//   or <error> when a runner error is why (the repetition broke; that is not the agent's result).
// Faulted repetitions the run never reached are skipped testcases too, and a `run.verdict` testcase
// fails for an aborted or invalid run, so a CI page never shows a stopped run as green. A probe with
// min_pass_rate adds `<probe>.min_pass_rate` (failure on fail, skipped while inconclusive).
// A testcase's time is its repetition's duration; the testsuite's is the run's whole duration.
import type { Report, ReportProbe } from '../schema.ts';
import { escapeXml } from './escape.ts';
import {
  faultedRepetitions,
  intervalText,
  notEvaluatedReason,
  probeLabel,
  probeObservation,
  probeResult,
  probeThreshold,
  repetitionEvidence,
  scoreText,
  thresholdText,
} from './format.ts';

type Outcome = { kind: 'passed' } | { kind: 'failure' | 'error'; type: string; message: string; body: string } | { kind: 'skipped'; message: string };

interface Case {
  name: string;
  time: number;
  outcome: Outcome;
}

const seconds = (s: number): string => (Number.isFinite(s) && s > 0 ? s.toFixed(3) : '0.000');

/** Ant writes the timestamp as local ISO 8601 without a zone; ours is the same shape, in UTC. */
function antTimestamp(iso: string): string | null {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : new Date(ms).toISOString().slice(0, 19);
}

function probeCases(report: Report, probes: readonly ReportProbe[]): Case[] {
  const cases: Case[] = [];
  for (const rep of faultedRepetitions(report)) {
    for (const probe of probes) {
      const name = `rep-${rep.index}.${probe.id}`;
      const result = probeResult(rep, probe.id);
      const evidence = () => repetitionEvidence(report, rep, probe).join('\n');
      let outcome: Outcome;
      if (result === true) outcome = { kind: 'passed' };
      else if (result === false)
        outcome = { kind: 'failure', type: 'probe_failed', message: `${probeLabel(probe)} failed: ${probeObservation(report, rep, probe)}`, body: evidence() };
      else if (rep.status === 'failed' || rep.error !== null)
        outcome = { kind: 'error', type: 'runner_error', message: notEvaluatedReason(report, rep, probe.id), body: evidence() };
      else outcome = { kind: 'skipped', message: `not evaluated: ${notEvaluatedReason(report, rep, probe.id)}` };
      cases.push({ name, time: rep.duration_s, outcome });
    }
  }
  for (const skipped of report.skipped.filter((s) => s.kind === 'faulted').sort((a, b) => a.index - b.index)) {
    for (const probe of probes) {
      cases.push({
        name: `rep-${skipped.index}.${probe.id}`,
        time: 0,
        outcome: { kind: 'skipped', message: `faulted repetition ${skipped.index} did not run: ${skipped.reason}` },
      });
    }
  }
  return cases;
}

function verdictCase(report: Report): Case {
  const outcome: Outcome =
    report.verdict === 'scored'
      ? { kind: 'passed' }
      : {
          kind: 'failure',
          type: `verdict_${report.verdict}`,
          message: `${report.verdict}: ${report.verdict_reason}`,
          body: [
            `verdict: ${report.verdict}`,
            `reason: ${report.verdict_reason}`,
            `score: ${scoreText(report)}`,
            ...report.warnings.map((w) => `warning: ${w}`),
          ].join('\n'),
        };
  return { name: 'run.verdict', time: 0, outcome };
}

function thresholdCases(probes: readonly ReportProbe[]): Case[] {
  const cases: Case[] = [];
  for (const probe of probes) {
    const t = probeThreshold(probe);
    if (t === null) continue;
    const text = `${probeLabel(probe)}: ${thresholdText(probe)}${t.note ? ` — ${t.note}` : ''}`;
    const outcome: Outcome =
      t.verdict === 'pass'
        ? { kind: 'passed' }
        : t.verdict === 'fail'
          ? {
              kind: 'failure',
              type: 'below_min_pass_rate',
              message: text,
              body: `${probe.passed} of ${probe.evaluated} passed; 95% interval ${intervalText(probe.wilson95, 'percent')}`,
            }
          : { kind: 'skipped', message: text };
    cases.push({ name: `${probe.id}.min_pass_rate`, time: 0, outcome });
  }
  return cases;
}

function caseXml(c: Case, classname: string): string {
  const open = `    <testcase name="${escapeXml(c.name)}" classname="${escapeXml(classname)}" time="${seconds(c.time)}"`;
  const o = c.outcome;
  if (o.kind === 'passed') return `${open}/>`;
  if (o.kind === 'skipped') return `${open}>\n      <skipped message="${escapeXml(o.message)}"/>\n    </testcase>`;
  return `${open}>\n      <${o.kind} message="${escapeXml(o.message)}" type="${escapeXml(o.type)}">${escapeXml(o.body)}</${o.kind}>\n    </testcase>`;
}

interface Suite {
  xml: string;
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
  time: number;
}

function suiteOf(report: Report): Suite {
  const probes = report.probes;
  const cases = [verdictCase(report), ...probeCases(report, probes), ...thresholdCases(probes)];
  const count = (kind: Outcome['kind']) => cases.filter((c) => c.outcome.kind === kind).length;
  const time = report.repetitions.reduce((sum, r) => sum + r.duration_s, 0);
  const classname = `intutic.chaos.${report.experiment.name}`;
  const stamp = antTimestamp(report.run.created_at);
  const properties: [string, string][] = [
    ['run_id', report.run.id],
    ['experiment_file', report.run.experiment_file],
    ['commit', report.run.commit],
    ['sandbox_image', report.run.sandbox_image],
    ['verdict', report.verdict],
    ['verdict_reason', report.verdict_reason],
    ['score', scoreText(report)],
    ['score_interval_95', intervalText(report.score_interval, 'score')],
    ['report', report.report_path],
    ['artifacts', report.artifacts_dir],
  ];
  const counts = { tests: cases.length, failures: count('failure'), errors: count('error'), skipped: count('skipped') };
  const lines = [
    `  <testsuite name="${escapeXml(report.experiment.name)}" tests="${counts.tests}" failures="${counts.failures}" errors="${counts.errors}" skipped="${counts.skipped}" time="${seconds(time)}"${stamp ? ` timestamp="${stamp}"` : ''} id="${escapeXml(report.run.id)}" package="intutic.chaos">`,
    '    <properties>',
    ...properties.map(([name, value]) => `      <property name="${escapeXml(name)}" value="${escapeXml(value)}"/>`),
    '    </properties>',
    ...cases.map((c) => caseXml(c, classname)),
    `    <system-out>${escapeXml(`${report.experiment.name}: ${report.verdict}, score ${scoreText(report)} (95% interval ${intervalText(report.score_interval, 'score')})\n${report.verdict_reason}`)}</system-out>`,
    `    <system-err>${escapeXml(report.warnings.map((w) => `warning: ${w}`).join('\n'))}</system-err>`,
    '  </testsuite>',
  ];
  return { xml: lines.join('\n'), ...counts, time };
}

export function renderJUnit(reports: Report | readonly Report[]): string {
  const list: readonly Report[] = Array.isArray(reports) ? reports : [reports as Report];
  const suites = list.map(suiteOf);
  const sum = (key: 'tests' | 'failures' | 'errors' | 'skipped' | 'time') => suites.reduce((total, s) => total + s[key], 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="intutic chaos" tests="${sum('tests')}" failures="${sum('failures')}" errors="${sum('errors')}" skipped="${sum('skipped')}" time="${seconds(sum('time'))}">`,
    ...suites.map((s) => s.xml),
    '</testsuites>',
    '',
  ].join('\n');
}
