// The terminal views of the history and of a comparison: aligned plain-text tables, newest run
// first, deltas signed, every "beyond noise" answer next to the method that gave it.
import type { HistoryEntry } from './entry.ts';
import type { Comparison, ProbeDelta, RunSnapshot, Side } from './compare.ts';

function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows.map((r) =>
    r
      .map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!)))
      .join('  ')
      .trimEnd(),
  );
}

const oneDecimal = (x: number) => String(Math.round(x * 10) / 10);
const percent = (x: number) => `${oneDecimal(x * 100)}%`;
const signed = (x: number, unit: string) => `${x > 0 ? '+' : x < 0 ? '−' : '±'}${oneDecimal(Math.abs(x))}${unit}`;

/** "2025-03-01 10:12:00Z" — sortable and the same for every reader. */
export function shortTime(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms)
    ? iso
    : new Date(ms)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d{3}Z$/, 'Z');
}

export function renderHistoryTable(entries: readonly HistoryEntry[]): string {
  const rows = [['finished', 'run', 'experiment', 'verdict', 'score', 'commit', 'image', 'report']];
  for (const e of entries) {
    rows.push([
      shortTime(e.finished_at),
      e.run_id,
      e.experiment,
      e.verdict,
      e.score === null ? 'n/a' : oneDecimal(e.score),
      e.commit.slice(0, 12),
      e.sandbox_image,
      e.report_path,
    ]);
  }
  return table(rows).join('\n') + '\n';
}

const sideText = (s: Side | null) => (s === null ? '—' : s.rate === null ? `0/0 n/a` : `${s.passed}/${s.evaluated} ${percent(s.rate)}`);

function verdictText(p: ProbeDelta): string {
  if (p.beyond_noise === null) return 'cannot tell';
  return p.beyond_noise ? 'YES' : 'no';
}

function runLine(name: string, run: RunSnapshot): string {
  const from = run.from === 'history' ? ' [from the history: the report is gone]' : '';
  return `${name}: ${run.run_id}  ${run.experiment}, ${run.verdict}, finished ${shortTime(run.finished_at)}, commit ${run.commit.slice(0, 12)}, image ${run.sandbox_image}${from}`;
}

export function renderComparison(c: Comparison): string {
  const lines = [runLine('a', c.a), runLine('b', c.b), ''];
  const rows = [['probe', 'a', 'b', 'delta (b − a)', 'p', 'beyond noise?']];
  for (const p of c.probes) {
    rows.push([
      p.id,
      sideText(p.a),
      sideText(p.b),
      p.delta === null ? '—' : signed(p.delta * 100, ' pp'),
      p.p_value === null ? '—' : p.p_value.toFixed(3),
      verdictText(p) + (p.notes.length ? ` (${p.notes.join('; ')})` : ''),
    ]);
  }
  const score = (value: number | null, run: RunSnapshot) =>
    value === null ? 'n/a' : `${oneDecimal(value)}${run.score_interval ? ` [${oneDecimal(run.score_interval[0])}–${oneDecimal(run.score_interval[1])}]` : ''}`;
  rows.push([
    'score',
    score(c.score.a, c.a),
    score(c.score.b, c.b),
    c.score.delta === null ? '—' : signed(c.score.delta, ''),
    '—',
    `${c.score.beyond_noise === null ? 'cannot tell' : c.score.beyond_noise ? 'YES' : 'no'} (${c.score.note})`,
  ]);
  lines.push(...table(rows), '');
  lines.push(`method: ${c.method}`);
  for (const w of c.warnings) lines.push(`warning: ${w}`);
  return lines.join('\n') + '\n';
}
