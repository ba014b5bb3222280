// The suite's HTML page: self-contained like the run report (the same stylesheet and CSP, no script,
// nothing fetched), every piece of report text escaped. The matrix is rows experiments × columns
// profiles; each cell shows its score, interval bar, verdict and cost and links to the cell's own
// report by a path relative to this page, so the directory can be moved or archived whole.
import { escapeHtml as h } from '../render/escape.ts';
import { usd } from '../render/format.ts';
import { bar } from '../render/html.ts';
import { HTML_STYLE } from '../render/html-style.ts';
import { cellKey, differenceText, scoreWithInterval, suiteMatrix, type MatrixCell, type SuiteMatrix } from './matrix.ts';
import type { SuiteReport } from './schema.ts';

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

const SUITE_STYLE = `
.matrix-wrap { overflow-x:auto; }
table.matrix td, table.matrix th { min-width:150px; }
table.matrix th.exp, table.matrix td.exp { min-width:180px; }
td.cell .score { font-size:18px; font-weight:700; font-variant-numeric:tabular-nums; }
td.cell .iv { color:var(--muted); font-size:12px; margin-left:4px; }
td.cell a { color:inherit; } td.cell .meta { font-size:12px; color:var(--muted); }
td.cell.verdict-aborted { background:var(--bad-bg); } td.cell.verdict-invalid, td.cell.status-skipped, td.cell.status-error { background:var(--warn-bg); }
td.cell .why { font-size:12px; overflow-wrap:anywhere; }
tr.overall td { background:#eef1f5; font-weight:600; font-variant-numeric:tabular-nums; }
td.cell .badge.invalid, td.cell .badge.aborted { background:var(--card); }
ul.diffs li { margin:3px 0; }
`;

function cellHtml(cell: MatrixCell): string {
  const cls = `cell status-${cell.status}${cell.verdict ? ` verdict-${cell.verdict}` : ''}`;
  const data = `data-experiment="${h(cell.experiment)}" data-profile="${h(cell.profile)}" data-status="${cell.status}"`;
  if (cell.status !== 'done')
    return `<td class="${cls}" ${data}><span class="badge invalid">${cell.status}</span><div class="why">${h(cell.note ?? '')}</div></td>`;
  const score = cell.score === null ? 'no score' : String(Math.round(cell.score));
  const iv = cell.interval ? `<span class="iv">[${Math.round(cell.interval[0])}–${Math.round(cell.interval[1])}]</span>` : '';
  const link = cell.link ? ` · <a href="${h(encodeURI(cell.link))}">report</a>` : '';
  const why = cell.note ? `<div class="why">${h(cell.note)}</div>` : '';
  return `<td class="${cls}" ${data}><span class="score">${h(score)}</span>${iv}${bar(cell.score, cell.interval, 100)}<div class="meta"><span class="badge ${h(cell.verdict ?? '')}">${h(cell.verdict ?? '')}</span> ${usd(cell.cost_usd)}${link}</div>${why}</td>`;
}

function matrixTable(m: SuiteMatrix): string {
  const { report } = m;
  const head = report.profiles
    .map((p) => `<th scope="col">${h(p.id)}<div class="muted">${h([p.agent === p.id ? null : p.agent, p.model].filter(Boolean).join(' · '))}</div></th>`)
    .join('');
  const rows = report.experiments.map(
    (e) =>
      `<tr><th scope="row" class="exp">${h(e.name)}<div class="muted">${h(e.fault)}</div></th>${report.profiles.map((p) => cellHtml(m.cells.get(cellKey(e.name, p.id))!)).join('')}</tr>`,
  );
  const overall = m.overall
    .map(
      (o) =>
        `<td class="overall-cell" data-overall="${h(o.profile)}">${h(scoreWithInterval(o.score, o.interval))}${bar(o.score, o.interval, 100)}<div class="meta muted">${o.scored_cells} of ${o.cells} cells · ${usd(o.cost_usd)}</div></td>`,
    )
    .join('');
  return `<div class="matrix-wrap"><table class="matrix"><thead><tr><th class="exp">experiment · fault</th>${head}</tr></thead>
<tbody>${rows.join('\n')}
<tr class="overall"><td class="exp">overall</td>${overall}</tr></tbody></table></div>`;
}

export function renderSuiteHtml(report: SuiteReport): string {
  const m = suiteMatrix(report);
  const s = report.suite;
  const meta: [string, string][] = [
    ['suite', s.id],
    ['file', s.file],
    ['started', s.created_at],
    ['finished', s.finished_at],
    ['repetitions', String(s.repetitions)],
    ['model cost', `${usd(report.cost_usd)}${s.cost_ceiling_usd === null ? '' : ` of ${usd(s.cost_ceiling_usd)} ceiling`}`],
  ];
  const diffs = m.differences.length
    ? `<ul class="diffs">${m.differences.map((d) => `<li>${h(differenceText(d))}</li>`).join('')}</ul>`
    : '<p>No two profiles differ beyond noise.</p>';
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(`suite ${s.name}: ${report.experiments.length} × ${report.profiles.length} — intutic chaos`)}</title>
<style>${HTML_STYLE}${SUITE_STYLE}</style></head>
<body><main>
<header class="run ${s.stopped_reason ? 'verdict-aborted' : 'verdict-scored'}">
<div><h1>${h(s.name)}</h1><div class="muted">${report.experiments.length} experiments × ${report.profiles.length} profiles</div>
${s.stopped_reason ? `<p class="reason"><span class="badge aborted">stopped</span> ${h(s.stopped_reason)}</p>` : ''}</div>
<dl class="meta">${meta.map(([k, v]) => `<div><dt>${h(k)}</dt><dd>${h(v)}</dd></div>`).join('')}</dl>
</header>
<h2>Matrix</h2>
<p class="muted">Each cell: score 0–100 [95% interval], verdict, model cost, and a link to the cell’s own report.</p>
${matrixTable(m)}
<h2>Beyond noise</h2>
${diffs}
<footer>intutic ${h(report.generator.version)} · suite schema ${report.schema_version} · <span class="mono">${h(report.report_path)}</span> · ${h(m.method)}.</footer>
</main></body></html>
`;
}
