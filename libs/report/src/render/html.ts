// The HTML report: one self-contained page (inline CSS, no script, nothing fetched; a CSP says so)
// with the verdict and score, the probe table with Wilson intervals, every repetition at a glance,
// the warnings, and per repetition a timeline of its events. Pure: the caller reads the events
// (readTimelines) and writes the file. Every piece of report or event text is escaped.
import type { Report, ReportRepetition } from '../schema.ts';
import { escapeHtml as h } from './escape.ts';
import { HTML_STYLE } from './html-style.ts';
import {
  intervalText,
  notEvaluatedReason,
  passHatKText,
  passRateText,
  probeLabel,
  probeObservation,
  probeResult,
  probeThreshold,
  scoreText,
  thresholdText,
  totalCost,
  usd,
} from './format.ts';
import { offsetText, repetitionKey, timelineOf, type EventsByRepetition, type RepetitionEvents } from './timeline.ts';

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

const clamp = (x: number): number => Math.min(100, Math.max(0, x));

/** A 0–100 track with the interval as a band and the point estimate as a tick. Numbers only: ours. */
export function bar(point: number | null, interval: readonly [number, number] | null, scale: number): string {
  if (point === null) return '';
  const band = interval
    ? `<span class="band" style="left:${clamp((interval[0] / scale) * 100).toFixed(1)}%;width:${clamp(((interval[1] - interval[0]) / scale) * 100).toFixed(1)}%"></span>`
    : '';
  return `<span class="bar" aria-hidden="true">${band}<span class="point" style="left:${clamp((point / scale) * 100).toFixed(1)}%"></span></span>`;
}

function chip(result: boolean | null, label: string, title: string): string {
  const cls = result === true ? 'pass' : result === false ? 'fail' : 'na';
  const sign = result === true ? '✓' : result === false ? '✗' : '–';
  return `<span class="chip ${cls}" title="${h(title)}">${sign} ${h(label)}</span>`;
}

function header(report: Report): string {
  const meta: [string, string][] = [
    ['run', report.run.id],
    ['experiment file', report.run.experiment_file],
    ['commit', report.run.commit.slice(0, 12)],
    ['sandbox image', report.run.sandbox_image],
    ['started', report.run.created_at],
    ['finished', report.run.finished_at],
    ['repetitions', `${report.repetitions.length} of ${report.experiment.repeat * 2} ran${report.skipped.length ? `, ${report.skipped.length} skipped` : ''}`],
    ['model cost', `${usd(totalCost(report))}${report.baseline_cost_usd === null ? '' : ` (baseline mean ${usd(report.baseline_cost_usd)})`}`],
  ];
  return `<header class="run verdict-${report.verdict}">
<div>
  <h1>${h(report.experiment.name)}</h1>
  ${report.experiment.description ? `<div class="muted">${h(report.experiment.description)}</div>` : ''}
  <p class="reason"><span id="verdict" class="badge ${report.verdict}" data-verdict="${report.verdict}">${report.verdict}</span> <span id="verdict-reason">${h(report.verdict_reason)}</span></p>
</div>
<div class="score"><div class="muted">resilience score</div><div><span id="score" class="value">${h(scoreText(report))}</span><span class="of"> / 100</span></div>
  ${bar(report.score, report.score_interval, 100)}
  <div class="muted" id="score-interval">95% interval ${h(intervalText(report.score_interval, 'score'))}</div></div>
<dl class="meta">${meta.map(([k, v]) => `<div><dt>${h(k)}</dt><dd class="mono">${h(v)}</dd></div>`).join('')}</dl>
</header>`;
}

function probeTable(report: Report): string {
  const rows = report.probes.map((p) => {
    const t = probeThreshold(p);
    const threshold = t === null ? '<span class="muted">—</span>' : `<span class="th-${t.verdict}" title="${h(t.note ?? '')}">${h(thresholdText(p))}</span>`;
    return `<tr class="probe-row" data-probe="${h(p.id)}">
<td><code>${h(probeLabel(p))}</code>${p.in_score ? '' : ' <span class="muted">(not in score)</span>'}</td>
<td class="num">${h(String(p.weight))}</td>
<td class="num pass-rate">${h(passRateText(p))}</td>
<td>${bar(p.pass_rate, p.wilson95, 1)}<div class="muted wilson">${h(intervalText(p.wilson95, 'percent'))}</div></td>
<td class="num">${p.passed}/${p.evaluated}</td><td class="num">${p.not_evaluated}</td>
<td class="muted">${h(passHatKText(p))}</td><td>${threshold}</td></tr>`;
  });
  return `<h2>Probes</h2>
<table id="probes"><thead><tr><th>Probe</th><th>Weight</th><th>Pass rate</th><th>95% Wilson interval</th><th>Passed</th><th>Not evaluated</th><th>pass^k</th><th>min_pass_rate</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>`;
}

function repetitionRow(report: Report, rep: ReportRepetition): string {
  const chips =
    rep.kind === 'baseline'
      ? '<span class="muted">baseline: no probes</span>'
      : report.probes
          .map((p) => {
            const r = probeResult(rep, p.id);
            return chip(r, p.id, r === null ? `not evaluated: ${notEvaluatedReason(report, rep, p.id)}` : probeObservation(report, rep, p));
          })
          .join('');
  const stop = rep.abort ? `abort: ${rep.abort.condition} — ${rep.abort.detail}` : rep.error ? `error: ${rep.error}` : '';
  return `<tr class="rep-row" data-rep="${repetitionKey(rep)}"><td>${rep.kind} ${rep.index}</td><td class="mono">${h(rep.run_id)}</td>
<td class="num">${rep.agent_exit_code ?? '–'}</td><td class="num">${rep.verify_exit_code ?? '–'}</td>
<td class="num">${usd(rep.cost_usd)}${rep.cost_multiplier === null ? '' : ` <span class="muted">(${rep.cost_multiplier.toFixed(2)}×)</span>`}</td>
<td class="num">${rep.duration_s.toFixed(1)} s</td><td class="num">${rep.injections}</td><td>${chips}</td><td>${h(stop)}</td></tr>`;
}

function repetitionTable(report: Report): string {
  const skipped = report.skipped.map(
    (s) => `<tr class="skipped-row"><td>${s.kind} ${s.index}</td><td colspan="8" class="muted">did not run: ${h(s.reason)}</td></tr>`,
  );
  return `<h2>Repetitions</h2>
<table id="repetitions"><thead><tr><th>Repetition</th><th>Run id</th><th>Agent exit</th><th>Verify exit</th><th>Cost</th><th>Duration</th><th>Injections</th><th>Probes</th><th>Stopped by</th></tr></thead>
<tbody>${[...report.repetitions.map((r) => repetitionRow(report, r)), ...skipped].join('\n')}</tbody></table>`;
}

function warnings(report: Report): string {
  if (report.warnings.length === 0) return '<h2>Warnings</h2><p class="muted" id="warnings-none">None.</p>';
  return `<h2>Warnings (${report.warnings.length})</h2><ul class="warnings" id="warnings">${report.warnings.map((w) => `<li>${h(w)}</li>`).join('')}</ul>`;
}

function timelineBody(source: RepetitionEvents | undefined): string {
  if (source === undefined) return '<p class="missing">The events of this repetition were not read.</p>';
  if (source.status === 'missing') return `<p class="missing">The events of this repetition are not available: ${h(source.reason)}.</p>`;
  const entries = timelineOf(source.events);
  const notes = [
    source.malformed > 0 ? `${source.malformed} malformed event line(s) ignored` : '',
    source.omitted > 0
      ? `${source.omitted} routine event(s) left out to keep the page small (faults, aborts and gate decisions are all shown); the full list is in the events file`
      : '',
  ].filter(Boolean);
  const items = entries.map(
    (
      e,
    ) => `<li class="event kind-${e.kind} tone-${e.tone}" data-kind="${e.kind}"><span class="when mono">${offsetText(e.offset_ms)}</span><span class="src">${h(e.source)}</span>
<span class="what">${h(e.title)}${e.detail ? `<div class="detail">${h(e.detail)}</div>` : ''}</span><span class="cost mono">${e.cost_usd === null ? '' : `${usd(e.cost_usd)}<div class="muted">Σ ${usd(e.cumulative_cost_usd ?? 0)}</div>`}</span></li>`,
  );
  const empty = entries.length === 0 ? '<p class="missing">The events file holds no events.</p>' : '';
  return `${notes.map((n) => `<p class="missing">${h(n)}</p>`).join('')}${empty}<ol class="timeline">${items.join('\n')}</ol>`;
}

function timelines(report: Report, events: EventsByRepetition): string {
  const sections = report.repetitions.map((rep) => {
    const key = repetitionKey(rep);
    const source = events.get(key);
    const count = source?.status === 'read' ? `${source.events.length} event(s)` : 'no events';
    return `<details class="rep" id="timeline-${key}"${rep.kind === 'faulted' ? ' open' : ''}><summary>${rep.kind} repetition ${rep.index} <span class="muted">· ${h(rep.run_id)} · ${count} · ${usd(rep.cost_usd)} · ${rep.duration_s.toFixed(1)} s${rep.abort ? ` · aborted: ${h(rep.abort.condition)}` : ''}${rep.error ? ' · runner error' : ''}</span></summary>
${timelineBody(source)}</details>`;
  });
  return `<h2>Timelines</h2><div id="timelines">${sections.join('\n') || '<p class="muted">No repetition ran.</p>'}</div>`;
}

export function renderHtml(report: Report, eventsByRepetition: EventsByRepetition = new Map()): string {
  const title = `${report.experiment.name}: ${report.verdict}, score ${scoreText(report)} — intutic chaos`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(title)}</title>
<style>${HTML_STYLE}</style></head>
<body><main>
${header(report)}
${probeTable(report)}
${repetitionTable(report)}
${warnings(report)}
${timelines(report, eventsByRepetition)}
<footer>intutic ${h(report.generator.version)} · report schema ${report.schema_version} · <span class="mono">${h(report.report_path)}</span> · score = Σ(weight × pass rate) ÷ Σ(weight) × 100 over the probes that evaluated a repetition; pass-rate intervals are Wilson 95%, and the score’s applies the formula to their bounds.</footer>
</main></body></html>
`;
}
