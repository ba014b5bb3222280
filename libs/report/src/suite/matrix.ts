// The suite matrix as plain data, computed once from a SuiteReport so every view (JSON, Markdown,
// JUnit, HTML) says the same thing: per cell score, interval, verdict, cost and link; per profile an
// overall score; per pair of profiles where they differ beyond noise.
//
// Pooling. A profile's overall score is the mean of its scored cells' scores, each experiment
// counting once. Its interval is the mean of those cells' interval bounds: that assumes the cells'
// errors all point the same way (no averaging-out), so it is wider than an independence-based
// interval would be — conservative, like the cell intervals it is made of.
// Noise. Two scores differ beyond noise when their 95% intervals do not overlap: intervalsApart, the
// very test `chaos compare` applies to run scores (libs/scoring/src/stats.ts).
import path from 'node:path';
import { intervalsApart, type Interval } from '@intutic/scoring';
import type { Report } from '../schema.ts';
import type { SuiteCell, SuiteReport } from './schema.ts';

export const SUITE_METHOD =
  "overall: the mean of a profile's scored cells (each experiment once), interval the mean of their 95% bounds " +
  '(conservative); two profiles overall are compared on the experiments both scored; beyond noise: the 95% ' +
  'intervals do not overlap, the test `chaos compare` uses for scores';

export interface MatrixCell {
  experiment: string;
  profile: string;
  status: SuiteCell['status'];
  score: number | null;
  interval: Interval | null;
  verdict: Report['verdict'] | null;
  cost_usd: number;
  /** The cell's own report, relative to the suite report's directory; null without a report. */
  link: string | null;
  /** Why the cell has no score: skipped/error reason, or the run's own verdict reason. */
  note: string | null;
}

export interface ProfileOverall {
  profile: string;
  score: number | null;
  interval: Interval | null;
  scored_cells: number;
  cells: number;
  cost_usd: number;
}

export interface PairDifference {
  a: string;
  b: string;
  /** null: the whole suite. */
  experiment: string | null;
  /** b minus a, score points. */
  delta: number;
  better: string;
}

export interface SuiteMatrix {
  report: SuiteReport;
  cells: Map<string, MatrixCell>;
  overall: ProfileOverall[];
  /** Only the pairs whose difference is beyond noise, overall first, then per experiment. */
  differences: PairDifference[];
  method: string;
}

export const cellKey = (experiment: string, profile: string): string => `${experiment}\u0000${profile}`;

export function cellCost(cell: SuiteCell): number {
  return cell.report === null ? 0 : cell.report.repetitions.reduce((sum, r) => sum + r.cost_usd, 0);
}

export function cellLink(suite: SuiteReport, reportPath: string): string {
  const rel = path.relative(path.dirname(suite.report_path), reportPath);
  return rel.split(path.sep).join('/');
}

function matrixCell(suite: SuiteReport, experiment: string, profile: string): MatrixCell {
  const cell = suite.cells.find((c) => c.experiment === experiment && c.profile === profile);
  if (!cell)
    return { experiment, profile, status: 'skipped', score: null, interval: null, verdict: null, cost_usd: 0, link: null, note: 'not in the suite report' };
  const r = cell.report;
  const note = cell.reason ?? (r && r.score === null ? r.verdict_reason : null);
  // A run that broke (error) keeps its report for the link, but its partial score is not the agent's.
  const scored = cell.status === 'error' ? null : r;
  return {
    experiment,
    profile,
    status: cell.status,
    score: scored?.score ?? null,
    interval: scored?.score_interval ?? null,
    verdict: r?.verdict ?? null,
    cost_usd: cellCost(cell),
    link: r ? cellLink(suite, r.report_path) : null,
    note: cell.status === 'done' || note ? note : `${cell.status} without a reason`,
  };
}

const mean = (xs: number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
const round = (x: number): number => Math.round(x * 1e6) / 1e6;

function overallOf(profile: string, cells: MatrixCell[]): ProfileOverall {
  const scored = cells.filter((c) => c.score !== null && c.interval !== null);
  const cost = cells.reduce((s, c) => s + c.cost_usd, 0);
  if (scored.length === 0) return { profile, score: null, interval: null, scored_cells: 0, cells: cells.length, cost_usd: cost };
  return {
    profile,
    score: round(mean(scored.map((c) => c.score!))),
    interval: [round(mean(scored.map((c) => c.interval![0]))), round(mean(scored.map((c) => c.interval![1])))],
    scored_cells: scored.length,
    cells: cells.length,
    cost_usd: cost,
  };
}

function difference(
  a: string,
  b: string,
  experiment: string | null,
  x: { score: number | null; interval: Interval | null },
  y: { score: number | null; interval: Interval | null },
): PairDifference | null {
  if (x.score === null || y.score === null || intervalsApart(x.interval, y.interval) !== true) return null;
  const delta = round(y.score - x.score);
  return { a, b, experiment, delta, better: delta > 0 ? b : a };
}

export function suiteMatrix(suite: SuiteReport): SuiteMatrix {
  const cells = new Map<string, MatrixCell>();
  for (const e of suite.experiments) for (const p of suite.profiles) cells.set(cellKey(e.name, p.id), matrixCell(suite, e.name, p.id));
  const column = (profile: string) => suite.experiments.map((e) => cells.get(cellKey(e.name, profile))!);
  const overall = suite.profiles.map((p) => overallOf(p.id, column(p.id)));
  const differences: PairDifference[] = [];
  const ids = suite.profiles.map((p) => p.id);
  // Overall pairs are compared on the experiments both profiles scored: a skipped cell on one side
  // must not make the other look better or worse.
  for (let i = 0; i < ids.length; i++)
    for (let j = i + 1; j < ids.length; j++) {
      const both = suite.experiments.filter((e) => [ids[i]!, ids[j]!].every((p) => cells.get(cellKey(e.name, p))!.score !== null));
      if (both.length === 0) continue;
      const pooled = (p: string) =>
        overallOf(
          p,
          both.map((e) => cells.get(cellKey(e.name, p))!),
        );
      const d = difference(ids[i]!, ids[j]!, null, pooled(ids[i]!), pooled(ids[j]!));
      if (d) differences.push(d);
    }
  for (const e of suite.experiments)
    for (let i = 0; i < ids.length; i++)
      for (let j = i + 1; j < ids.length; j++) {
        const d = difference(ids[i]!, ids[j]!, e.name, cells.get(cellKey(e.name, ids[i]!))!, cells.get(cellKey(e.name, ids[j]!))!);
        if (d) differences.push(d);
      }
  return { report: suite, cells, overall, differences, method: SUITE_METHOD };
}

export const scoreWithInterval = (score: number | null, interval: Interval | null): string =>
  score === null ? 'no score' : `${Math.round(score)} [${interval ? `${Math.round(interval[0])}–${Math.round(interval[1])}` : '?'}]`;

export function differenceText(d: PairDifference): string {
  const worse = d.better === d.a ? d.b : d.a;
  return `${d.better} beats ${worse} by ${Math.round(Math.abs(d.delta))} points${d.experiment === null ? ' overall' : ` on ${d.experiment}`}`;
}
