// The terminal view of a report: each probe's pass rate (pass^k for task_success), the score, the
// verdict with its reason, the warnings and where the report and artifacts are. Plain text; color
// only when asked.
import pc from 'picocolors';
import type { Report } from './schema.ts';

function pad(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - text.length));
}

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows.map((r) =>
    r
      .map((cell, c) => (c === r.length - 1 ? cell : pad(cell, widths[c]!)))
      .join('  ')
      .trimEnd(),
  );
}

const percent = (x: number) => `${Math.round(x * 1000) / 10}%`;

export function renderSummary(report: Report, options: { color?: boolean } = {}): string {
  const paint = options.color ? pc : { bold: String, red: String, green: String, yellow: String, dim: String };
  const lines: string[] = [];
  const verdictColor = report.verdict === 'scored' ? paint.green : report.verdict === 'aborted' ? paint.red : paint.yellow;
  lines.push(paint.bold(`${report.experiment.name} — run ${report.run.id}`));
  const rows = [['probe', 'weight', 'pass rate', 'passed', 'not evaluated']];
  for (const p of report.probes) {
    const rate = p.pass_rate === null ? 'n/a' : percent(p.pass_rate);
    const passK = p.id === 'task_success' && p.pass_k !== null ? ` (pass^${p.evaluated}: ${p.pass_k ? 'yes' : 'no'})` : '';
    rows.push([p.id + (p.value !== null ? ` (${p.value})` : ''), String(p.weight), rate + passK, `${p.passed}/${p.evaluated}`, String(p.not_evaluated)]);
  }
  lines.push(...table(rows).map((l, i) => (i === 0 ? paint.dim(l) : l)));
  const ran = report.repetitions.length;
  const total = report.experiment.repeat * 2;
  const cost = report.repetitions.reduce((sum, r) => sum + r.cost_usd, 0);
  lines.push('');
  lines.push(`repetitions: ${ran} of ${total} ran${report.skipped.length ? `, ${report.skipped.length} skipped` : ''}; model cost $${cost.toFixed(4)}`);
  lines.push(
    `score: ${report.score === null ? 'n/a' : paint.bold(String(Math.round(report.score * 10) / 10))}${report.score_interval ? paint.dim(` (95% interval ${Math.round(report.score_interval[0] * 10) / 10}–${Math.round(report.score_interval[1] * 10) / 10})`) : ''}`,
  );
  lines.push(`verdict: ${verdictColor(report.verdict)} — ${report.verdict_reason}`);
  if (report.warnings.length > 0) {
    lines.push(paint.yellow(`warnings (${report.warnings.length}):`));
    for (const w of report.warnings) lines.push(`  - ${w}`);
  }
  lines.push(`report: ${report.report_path}`);
  lines.push(`artifacts: ${report.artifacts_dir}`);
  return lines.join('\n') + '\n';
}
