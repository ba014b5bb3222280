// A suite in the history, and comparing two suites cell by cell. Each done cell is one ordinary
// history line marked with its suite id and profile, so `chaos history` and `chaos compare` keep
// working on a cell's run; a suite is read back as the lines carrying its id (the last recorded of
// each cell wins). compareSuites applies compareRuns — the very noise tests of `chaos compare` — to
// each (experiment, profile) pair, so "an agent upgrade made one fault worse" shows as one cell whose
// score intervals no longer overlap, or whose probe pass counts differ by Fisher's exact test.
import { IntuticError } from '@intutic/errors';
import type { SuiteReport } from '@intutic/report';
import { compareRuns, snapshotOfEntry, snapshotOfReport, type Comparison, type RunSnapshot } from './compare.ts';
import { entryOfReport, type HistoryEntry } from './entry.ts';
import { appendEntry, listRuns, type HistoryOptions } from './store.ts';

/** One history line per done cell, marked with the suite and profile. */
export function entriesOfSuite(suite: SuiteReport, recordedAt: Date): HistoryEntry[] {
  return suite.cells.flatMap((cell) =>
    cell.status === 'done' && cell.report
      ? [{ ...entryOfReport(cell.report, recordedAt), suite: { id: suite.suite.id, name: suite.suite.name, profile: cell.profile } }]
      : [],
  );
}

export async function recordSuite(suite: SuiteReport, options: HistoryOptions & { now?: Date }): Promise<HistoryEntry[]> {
  const written: HistoryEntry[] = [];
  for (const entry of entriesOfSuite(suite, options.now ?? new Date())) written.push(await appendEntry(entry, options));
  return written;
}

/** What a suite comparison needs: per cell, the run (from a report or from its history line). */
export interface SuiteSnapshot {
  id: string;
  name: string;
  from: 'report' | 'history';
  /** Keyed by `experiment\u0000profile`. */
  cells: Map<string, { experiment: string; profile: string; run: RunSnapshot | null; status: string; reason: string | null }>;
}

const key = (experiment: string, profile: string): string => `${experiment}\u0000${profile}`;

export function suiteSnapshotOfReport(suite: SuiteReport): SuiteSnapshot {
  const cells: SuiteSnapshot['cells'] = new Map();
  for (const c of suite.cells) {
    cells.set(key(c.experiment, c.profile), {
      experiment: c.experiment,
      profile: c.profile,
      run: c.report ? snapshotOfReport(c.report) : null,
      status: c.status,
      reason: c.reason,
    });
  }
  return { id: suite.suite.id, name: suite.suite.name, from: 'report', cells };
}

/**
 * The suite with this id, or the only one whose id starts with it, from the history; null when none.
 * Only done cells are recorded, so skipped and error cells of a suite read from history are absent.
 */
export async function findSuite(ref: string, options: HistoryOptions): Promise<SuiteSnapshot | null> {
  const runs = (await listRuns(options)).filter((r) => r.suite !== undefined);
  const ids = [...new Set(runs.map((r) => r.suite!.id))];
  const exact = ids.includes(ref) ? [ref] : ids.filter((id) => id.startsWith(ref));
  if (exact.length > 1) throw new IntuticError('E_USAGE', `${ref} matches ${exact.length} suites in the history`, { hints: exact.slice(0, 5) });
  if (exact.length === 0) return null;
  const id = exact[0]!;
  const cells: SuiteSnapshot['cells'] = new Map();
  // listRuns is newest first: the first line seen for a cell is its latest.
  for (const r of runs.filter((x) => x.suite!.id === id)) {
    const k = key(r.experiment, r.suite!.profile);
    if (!cells.has(k)) cells.set(k, { experiment: r.experiment, profile: r.suite!.profile, run: snapshotOfEntry(r), status: 'done', reason: null });
  }
  return { id, name: runs.find((x) => x.suite!.id === id)!.suite!.name, from: 'history', cells };
}

export type CellChange = 'worse' | 'better' | 'within noise' | 'cannot tell' | 'only earlier' | 'only now';

export interface SuiteCellComparison {
  experiment: string;
  profile: string;
  change: CellChange;
  /** Why, in one line: the score delta and test, or the probes that moved, or what is missing. */
  summary: string;
  comparison: Comparison | null;
}

export interface SuiteComparison {
  earlier: SuiteSnapshot;
  now: SuiteSnapshot;
  cells: SuiteCellComparison[];
}

const signed = (x: number): string => `${x >= 0 ? '+' : ''}${Math.round(x * 10) / 10}`;

function cellChange(experiment: string, profile: string, a: RunSnapshot | null, b: RunSnapshot | null, why: string | null): SuiteCellComparison {
  const base = { experiment, profile };
  if (a === null && b === null) return { ...base, change: 'cannot tell', summary: why ?? 'no report on either side', comparison: null };
  if (a === null) return { ...base, change: 'only now', summary: why ?? 'not in the earlier suite', comparison: null };
  if (b === null) return { ...base, change: 'only earlier', summary: why ?? 'not in this suite', comparison: null };
  const c = compareRuns(a, b);
  const moved = c.probes.filter((p) => p.beyond_noise === true && p.delta !== null);
  const probeText = moved.map((p) => `${p.id} ${signed(p.delta! * 100)} pp (p=${p.p_value!.toFixed(3)})`).join(', ');
  if (c.score.beyond_noise === true && c.score.delta !== null) {
    const change = c.score.delta < 0 ? 'worse' : 'better';
    return { ...base, change, summary: `score ${signed(c.score.delta)} (${c.score.note})${probeText ? `; ${probeText}` : ''}`, comparison: c };
  }
  if (moved.length > 0) {
    // The score's interval test is conservative; a probe's exact test can still see a real move.
    const change = moved.every((p) => p.delta! < 0) ? 'worse' : moved.every((p) => p.delta! > 0) ? 'better' : 'cannot tell';
    return { ...base, change, summary: `${probeText}; score ${c.score.delta === null ? 'n/a' : signed(c.score.delta)} (${c.score.note})`, comparison: c };
  }
  if (c.score.beyond_noise === null) return { ...base, change: 'cannot tell', summary: c.score.note, comparison: c };
  return { ...base, change: 'within noise', summary: `score ${c.score.delta === null ? 'n/a' : signed(c.score.delta)} (${c.score.note})`, comparison: c };
}

export function compareSuites(earlier: SuiteSnapshot, now: SuiteSnapshot): SuiteComparison {
  const keys = [...new Set([...now.cells.keys(), ...earlier.cells.keys()])];
  const cells = keys.map((k) => {
    const a = earlier.cells.get(k);
    const b = now.cells.get(k);
    const any = (b ?? a)!;
    const why =
      b && b.run === null
        ? `${b.status} now${b.reason ? `: ${b.reason}` : ''}`
        : a && a.run === null
          ? `${a.status} earlier${a.reason ? `: ${a.reason}` : ''}`
          : null;
    return cellChange(any.experiment, any.profile, a?.run ?? null, b?.run ?? null, why);
  });
  return { earlier, now, cells };
}
