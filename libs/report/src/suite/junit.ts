// The suite's JUnit view: one testsuite per profile, one testcase per experiment in it (classname
// `intutic.chaos.suite.<profile>`), so a CI test page shows each agent as a suite and each fault as a
// test. A cell passes when its run scored and no probe fell below its min_pass_rate; an aborted or
// invalid run, or a failed threshold, is a failure; an error cell is an error (the run broke, that is
// not the agent's result); a skipped cell is skipped with its reason. The score and interval are in the
// message and in system-out, and the run's own JUnit (renderJUnit) has every probe.
import { escapeXml } from '../render/escape.ts';
import { probeThreshold, usd } from '../render/format.ts';
import { cellKey, scoreWithInterval, suiteMatrix, type MatrixCell } from './matrix.ts';
import type { SuiteReport } from './schema.ts';

type Outcome = { kind: 'passed' } | { kind: 'failure' | 'error'; type: string; message: string } | { kind: 'skipped'; message: string };

function outcomeOf(suite: SuiteReport, cell: MatrixCell): Outcome {
  if (cell.status === 'skipped') return { kind: 'skipped', message: `skipped: ${cell.note ?? 'no reason given'}` };
  if (cell.status === 'error') return { kind: 'error', type: 'cell_error', message: `error: ${cell.note ?? 'no reason given'}` };
  const report = suite.cells.find((c) => c.experiment === cell.experiment && c.profile === cell.profile)!.report!;
  const score = `score ${scoreWithInterval(cell.score, cell.interval)}`;
  if (report.verdict !== 'scored')
    return { kind: 'failure', type: `verdict_${report.verdict}`, message: `${report.verdict}: ${report.verdict_reason}; ${score}` };
  const below = report.probes.filter((p) => probeThreshold(p)?.verdict === 'fail').map((p) => p.id);
  if (below.length > 0) return { kind: 'failure', type: 'below_min_pass_rate', message: `below min_pass_rate: ${below.join(', ')}; ${score}` };
  return { kind: 'passed' };
}

const seconds = (s: number): string => (Number.isFinite(s) && s > 0 ? s.toFixed(3) : '0.000');

function caseXml(suite: SuiteReport, cell: MatrixCell, classname: string): { xml: string; kind: Outcome['kind']; time: number } {
  const report = suite.cells.find((c) => c.experiment === cell.experiment && c.profile === cell.profile)?.report ?? null;
  const time = report ? report.repetitions.reduce((s, r) => s + r.duration_s, 0) : 0;
  const o = outcomeOf(suite, cell);
  const open = `    <testcase name="${escapeXml(cell.experiment)}" classname="${escapeXml(classname)}" time="${seconds(time)}"`;
  const out = `      <system-out>${escapeXml(
    [`${scoreWithInterval(cell.score, cell.interval)}, ${cell.verdict ?? cell.status}, ${usd(cell.cost_usd)}`, cell.link ? `report: ${cell.link}` : null]
      .filter((x) => x !== null)
      .join('\n'),
  )}</system-out>`;
  let body: string;
  if (o.kind === 'passed') body = '';
  else if (o.kind === 'skipped') body = `      <skipped message="${escapeXml(o.message)}"/>\n`;
  else body = `      <${o.kind} message="${escapeXml(o.message)}" type="${escapeXml(o.type)}"/>\n`;
  return { xml: `${open}>\n${body}${out}\n    </testcase>`, kind: o.kind, time };
}

export function renderSuiteJUnit(suite: SuiteReport): string {
  const m = suiteMatrix(suite);
  const totals = { tests: 0, failures: 0, errors: 0, skipped: 0, time: 0 };
  const suites = suite.profiles.map((p, i) => {
    const classname = `intutic.chaos.suite.${p.id}`;
    const cases = suite.experiments.map((e) => caseXml(suite, m.cells.get(cellKey(e.name, p.id))!, classname));
    const count = (kind: Outcome['kind']) => cases.filter((c) => c.kind === kind).length;
    const c = {
      tests: cases.length,
      failures: count('failure'),
      errors: count('error'),
      skipped: count('skipped'),
      time: cases.reduce((s, x) => s + x.time, 0),
    };
    for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += c[k];
    const o = m.overall[i]!;
    const properties: [string, string][] = [
      ['suite_id', suite.suite.id],
      ['profile', p.id],
      ['agent', p.agent],
      ['model', p.model ?? ''],
      ['image', p.image],
      ['overall_score', scoreWithInterval(o.score, o.interval)],
    ];
    return [
      `  <testsuite name="${escapeXml(p.id)}" tests="${c.tests}" failures="${c.failures}" errors="${c.errors}" skipped="${c.skipped}" time="${seconds(c.time)}" id="${escapeXml(`${suite.suite.id}/${p.id}`)}" package="intutic.chaos.suite">`,
      '    <properties>',
      ...properties.map(([name, value]) => `      <property name="${escapeXml(name)}" value="${escapeXml(value)}"/>`),
      '    </properties>',
      ...cases.map((x) => x.xml),
      `    <system-out>${escapeXml(`${p.id}: overall ${scoreWithInterval(o.score, o.interval)} over ${o.scored_cells} of ${o.cells} cells`)}</system-out>`,
      '  </testsuite>',
    ].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${escapeXml(`intutic chaos suite ${suite.suite.name}`)}" tests="${totals.tests}" failures="${totals.failures}" errors="${totals.errors}" skipped="${totals.skipped}" time="${seconds(totals.time)}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
