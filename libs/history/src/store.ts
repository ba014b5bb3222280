// The run history: an append-only JSON Lines file, <home>/history.jsonl (home is ~/.intutic, or
// INTUTIC_HOME). Each run is one line written with a single write() on a file opened O_APPEND, so
// concurrent recorders (several workers, several terminals) never overwrite or interleave each
// other's lines on a local filesystem: the kernel places each append at the end atomically. A torn
// or foreign line is skipped and counted, never fatal.
import { mkdir, open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { diskFullMessage, IntuticError } from '@intutic/errors';
import type { Report } from '@intutic/report';
import { entryOfReport, historyEntrySchema, type HistoryEntry } from './entry.ts';

export const HISTORY_FILE = 'history.jsonl';

export interface HistoryOptions {
  /** The intutic home directory (~/.intutic or INTUTIC_HOME); the caller resolves it. */
  home: string;
}

export function historyPath(home: string): string {
  return join(home, HISTORY_FILE);
}

/** Appends the finished run to the history and returns the entry written. */
export async function recordRun(report: Report, options: HistoryOptions & { now?: Date }): Promise<HistoryEntry> {
  return appendEntry(entryOfReport(report, options.now ?? new Date()), options);
}

/** Appends one history line (validated first) and returns the entry written. */
export async function appendEntry(candidate: HistoryEntry, options: HistoryOptions): Promise<HistoryEntry> {
  const entry = historyEntrySchema.parse(candidate);
  const line = Buffer.from(JSON.stringify(entry) + '\n', 'utf8');
  await mkdir(options.home, { recursive: true });
  const handle = await open(historyPath(options.home), 'a', 0o644);
  try {
    // One write call: a short write would break the atomicity the history relies on, so say so.
    const { bytesWritten } = await handle.write(line, 0, line.length);
    // A regular file is written short only when space runs out (the disk, the quota, a file size limit).
    if (bytesWritten !== line.length) {
      throw new IntuticError(
        'E_DISK_FULL',
        `short write to ${historyPath(options.home)}: ${bytesWritten} of ${line.length} bytes; ${diskFullMessage(options.home, HISTORY_FILE)}`,
      );
    }
  } finally {
    await handle.close();
  }
  return entry;
}

export interface HistoryContents {
  /** In the order they were recorded. */
  entries: HistoryEntry[];
  /** Lines that are not a history entry (torn by a crash, edited by hand). */
  malformed: number;
  path: string;
}

export async function readHistory(options: HistoryOptions): Promise<HistoryContents> {
  const path = historyPath(options.home);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], malformed: 0, path };
    throw new IntuticError('E_FILE_NOT_FOUND', `cannot read the run history ${path}: ${(error as Error).message}`);
  }
  const lines = text.split('\n');
  // A last line without its newline is a write still in progress: not yet part of the history.
  lines.pop();
  const entries: HistoryEntry[] = [];
  let malformed = 0;
  for (const line of lines) {
    if (line.trim() === '') continue;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      malformed++;
      continue;
    }
    const parsed = historyEntrySchema.safeParse(raw);
    if (parsed.success) entries.push(parsed.data);
    else malformed++;
  }
  return { entries, malformed, path };
}

/**
 * Recorded runs, newest first (by finish time, then by recording order), optionally of one
 * experiment. A run recorded twice (by the worker and by `chaos run`, or re-recorded) is listed
 * once, as last recorded.
 */
export async function listRuns(options: HistoryOptions & { experiment?: string }): Promise<HistoryEntry[]> {
  const { entries } = await readHistory(options);
  const latest = new Map<string, { entry: HistoryEntry; i: number }>();
  entries.forEach((entry, i) => latest.set(entry.run_id, { entry, i }));
  const ordered = [...latest.values()].map(({ entry, i }) => ({ entry, i, at: Date.parse(entry.finished_at) }));
  ordered.sort((a, b) => (Number.isNaN(b.at) ? 0 : b.at) - (Number.isNaN(a.at) ? 0 : a.at) || b.i - a.i);
  return ordered.map((o) => o.entry).filter((e) => options.experiment === undefined || e.experiment === options.experiment);
}

/**
 * The run with this id, or the only run whose id starts with it (like a short git hash).
 * null when none matches; an ambiguous prefix is a usage error that lists the candidates.
 */
export async function findRun(ref: string, options: HistoryOptions): Promise<HistoryEntry | null> {
  const runs = await listRuns(options);
  const exact = runs.find((r) => r.run_id === ref);
  if (exact) return exact;
  const matches = runs.filter((r) => r.run_id.startsWith(ref));
  if (matches.length > 1) {
    throw new IntuticError('E_USAGE', `${ref} matches ${matches.length} runs in the history`, {
      hints: matches.slice(0, 5).map((m) => `${m.run_id} (${m.experiment}, ${m.finished_at})`),
    });
  }
  return matches[0] ?? null;
}
