// The effects around the pure renderers: read each repetition's events for the HTML timeline (in
// constant memory per line, with a cap on routine events so a runaway agent cannot make a 1 GB page),
// and write the renderings atomically. `chaos report` and `chaos run --junit/--summary-md` call
// writeRenderings; a missing artifacts directory makes the page say so rather than fail.
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { streamEvents, type ChaosEvent } from '@intutic/events';
import { writeFailure } from '@intutic/errors';
import { artifactsDirFor } from '../io.ts';
import type { Report, ReportRepetition } from '../schema.ts';
import { renderHtml } from './html.ts';
import { renderJUnit } from './junit.ts';
import { renderMarkdownSummary } from './markdown.ts';
import { repetitionKey, type EventsByRepetition, type RepetitionEvents } from './timeline.ts';

/** Routine events (model and tool calls, allowed gate decisions, forwarded egress) kept per repetition. */
export const MAX_ROUTINE_EVENTS = 2000;

/** A full disk leaves no half rendering: the temp file goes, and the error names the directory. */
export async function writeTextAtomic(path: string, text: string): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(temp, text, { mode: 0o644 });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw writeFailure(dirname(path), basename(path), error);
  }
}

function isRoutine(event: ChaosEvent): boolean {
  if (event.type === 'llm_call' || event.type === 'tool_call') return true;
  if (event.type === 'gate_decision') return event.decision === 'allow' && !event.destructive;
  if (event.type === 'egress_request') return event.outcome === 'forwarded';
  return false;
}

/**
 * Where a repetition's events file may be: where the report says, or — when the report was moved
 * or copied with its artifacts directory (a CI artifact download) — the same place relative to the
 * artifacts directory beside the report actually read.
 */
function candidatePaths(report: Report, rep: ReportRepetition, readFrom: string | undefined): string[] {
  const paths = [rep.artifacts.events];
  if (readFrom !== undefined) {
    const inside = relative(report.artifacts_dir, rep.artifacts.events);
    if (inside !== '' && !inside.startsWith('..') && !isAbsolute(inside)) paths.push(join(artifactsDirFor(resolve(readFrom)), inside));
  }
  return [...new Set(paths)];
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isFile(),
    () => false,
  );
}

export async function readRepetitionEvents(paths: readonly string[], maxRoutine = MAX_ROUTINE_EVENTS): Promise<RepetitionEvents> {
  for (const path of paths) {
    if (!(await isFile(path))) continue;
    const events: ChaosEvent[] = [];
    let routine = 0;
    let omitted = 0;
    const { malformed } = await streamEvents(path, (event) => {
      if (isRoutine(event) && ++routine > maxRoutine) omitted++;
      else events.push(event);
    });
    return { status: 'read', events, malformed, omitted };
  }
  return { status: 'missing', reason: `no events file at ${paths.join(' or ')}` };
}

/** Every repetition's events, keyed by repetitionKey. `readFrom`: the path the report was read from. */
export async function readTimelines(report: Report, options: { readFrom?: string; maxRoutine?: number } = {}): Promise<EventsByRepetition> {
  const out = new Map<string, RepetitionEvents>();
  for (const rep of report.repetitions) {
    out.set(repetitionKey(rep), await readRepetitionEvents(candidatePaths(report, rep, options.readFrom), options.maxRoutine));
  }
  return out;
}

export interface RenderingTargets {
  junit?: string;
  summaryMd?: string;
  html?: string;
}

export interface WrittenRendering {
  kind: 'junit' | 'summary-md' | 'html';
  path: string;
}

/**
 * Writes each rendering asked for (paths as given; resolve them first) and returns what it wrote.
 * `readFrom` is where the report file was read, when that may differ from report.report_path.
 */
export async function writeRenderings(report: Report, targets: RenderingTargets, options: { readFrom?: string } = {}): Promise<WrittenRendering[]> {
  const written: WrittenRendering[] = [];
  if (targets.junit) {
    await writeTextAtomic(targets.junit, renderJUnit(report));
    written.push({ kind: 'junit', path: targets.junit });
  }
  if (targets.summaryMd) {
    await writeTextAtomic(targets.summaryMd, renderMarkdownSummary(report));
    written.push({ kind: 'summary-md', path: targets.summaryMd });
  }
  if (targets.html) {
    const events = await readTimelines(report, options);
    await writeTextAtomic(targets.html, renderHtml(report, events));
    written.push({ kind: 'html', path: targets.html });
  }
  return written;
}
