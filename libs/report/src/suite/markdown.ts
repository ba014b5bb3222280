// The suite's Markdown view, for a PR comment or a terminal. The matrix table holds only what fits
// (score [95% interval], or why there is none); verdicts, costs and links to each cell's report follow
// as a list per experiment. With many profiles the columns are split over several tables so no line
// passes 120 characters: a wide table wraps unreadably in a terminal and scrolls sideways on GitHub.
import { escapeMarkdown } from '../render/escape.ts';
import { usd } from '../render/format.ts';
import { cellKey, differenceText, scoreWithInterval, suiteMatrix, type MatrixCell, type SuiteMatrix } from './matrix.ts';
import type { SuiteReport } from './schema.ts';

export const MARKDOWN_WIDTH = 120;

function cellText(cell: MatrixCell): string {
  if (cell.status !== 'done') return cell.status;
  if (cell.score === null) return cell.verdict ?? 'no score';
  return cell.verdict === 'scored' ? scoreWithInterval(cell.score, cell.interval) : `${scoreWithInterval(cell.score, cell.interval)} ${cell.verdict}`;
}

const pad = (text: string, width: number): string => text + ' '.repeat(Math.max(0, width - [...text].length));
const clip = (text: string, width: number): string => ([...text].length <= width ? text : `${[...text].slice(0, width - 1).join('')}…`);

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(3, [...h].length, ...rows.map((r) => [...r[i]!].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => pad(c, widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)];
}

/** Splits the profile columns into groups whose table fits the width next to the experiment column. */
function columnGroups(first: number, widths: number[], limit: number): number[][] {
  const groups: number[][] = [];
  let current: number[] = [];
  let used = first + 4;
  widths.forEach((w, i) => {
    if (current.length > 0 && used + w + 3 > limit) {
      groups.push(current);
      current = [];
      used = first + 4;
    }
    current.push(i);
    used += w + 3;
  });
  if (current.length > 0) groups.push(current);
  return groups;
}

function matrixTables(m: SuiteMatrix): string[] {
  const { report } = m;
  // Names longer than a third of the width are clipped in the table; the list below has them whole.
  const rowName = (s: string) => clip(escapeMarkdown(s), 40);
  const colName = (s: string) => clip(escapeMarkdown(s), 28);
  const first = Math.max(11, ...report.experiments.map((e) => [...rowName(e.name)].length));
  const colTexts = report.profiles.map((p, i) => [
    colName(p.id),
    ...report.experiments.map((e) => cellText(m.cells.get(cellKey(e.name, p.id))!)),
    scoreWithInterval(m.overall[i]!.score, m.overall[i]!.interval),
  ]);
  const widths = colTexts.map((texts) => Math.max(3, ...texts.map((t) => [...t].length)));
  const out: string[] = [];
  for (const group of columnGroups(first, widths, MARKDOWN_WIDTH)) {
    const header = ['experiment', ...group.map((i) => colTexts[i]![0]!)];
    const rows = report.experiments.map((e, r) => [rowName(e.name), ...group.map((i) => colTexts[i]![r + 1]!)]);
    rows.push(['**overall**', ...group.map((i) => colTexts[i]!.at(-1)!)]);
    out.push(...table(header, rows), '');
  }
  return out;
}

/** Wraps prose at the width on spaces; continuation lines get `indent` (a list item's continuation). */
export function wrap(text: string, indent = '', width = MARKDOWN_WIDTH): string[] {
  const lines: string[] = [];
  // The text's own indentation (a nested list item's) is kept on its first line.
  const lead = /^ */.exec(text)![0];
  let line = lead;
  for (const word of text.slice(lead.length).split(' ')) {
    const next = line.trim() === '' ? `${line}${word}` : `${line} ${word}`;
    if ([...next].length > width && line.trim() !== '') {
      lines.push(line);
      line = `${indent}${word}`;
    } else line = next;
  }
  lines.push(line);
  return lines;
}

function cellLine(cell: MatrixCell): string {
  const what = cell.status === 'done' ? `${cellText(cell)}, ${cell.verdict}, ${usd(cell.cost_usd)}` : cell.status;
  const link = cell.link ? ` — [report](${encodeURI(cell.link)})` : '';
  const note = cell.note ? `: ${escapeMarkdown(cell.note)}` : '';
  return `  - ${escapeMarkdown(cell.profile)}: ${what}${note}${link}`;
}

export function renderSuiteMarkdown(report: SuiteReport): string {
  const m = suiteMatrix(report);
  const s = report.suite;
  const out = [
    `# Suite ${escapeMarkdown(s.name)}`,
    '',
    `${report.experiments.length} experiments × ${report.profiles.length} profiles, ${s.repetitions} repetitions each, ${usd(report.cost_usd)} in all.`,
    ...wrap(`Suite ${escapeMarkdown(s.id)}, ${escapeMarkdown(s.file)}, finished ${escapeMarkdown(s.finished_at)}.`),
  ];
  if (s.stopped_reason) out.push('', ...wrap(`**Stopped early:** ${escapeMarkdown(s.stopped_reason)}`));
  out.push('', 'Cells: score [95% interval], 0–100.', '', ...matrixTables(m));
  out.push('## Beyond noise', '');
  if (m.differences.length === 0) out.push('No two profiles differ beyond noise.');
  for (const d of m.differences) out.push(...wrap(`- ${escapeMarkdown(differenceText(d))}`, '  '));
  out.push('', ...wrap(`Method: ${escapeMarkdown(m.method)}.`), '', '## Cells', '');
  for (const e of report.experiments) {
    out.push(...wrap(`- **${escapeMarkdown(e.name)}** (${escapeMarkdown(e.fault)}), ${escapeMarkdown(e.file)}`, '  '));
    for (const p of report.profiles) out.push(...wrap(cellLine(m.cells.get(cellKey(e.name, p.id))!), '    '));
  }
  out.push('', '## Profiles', '');
  for (const p of report.profiles) {
    const o = m.overall.find((x) => x.profile === p.id)!;
    const model = p.model ? `, model ${escapeMarkdown(p.model)}` : '';
    const line = `- **${escapeMarkdown(p.id)}**: ${escapeMarkdown(p.agent)}${model}, image ${escapeMarkdown(p.image)}; overall ${scoreWithInterval(o.score, o.interval)} over ${o.scored_cells} of ${o.cells} cells, ${usd(o.cost_usd)}`;
    out.push(...wrap(line, '  '));
  }
  return `${out.join('\n')}\n`;
}
