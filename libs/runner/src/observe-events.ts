// One repetition's events file into its facts: streamed through a RepetitionObserver, so memory stays
// constant however long the file is. Used inline and by the observation threads (observe-worker.ts).
import { existsSync } from 'node:fs';
import { streamEvents } from '@intutic/events';
import type { Experiment } from '@intutic/experiment';
import { emptyFacts, RepetitionObserver, type RepetitionFacts } from '@intutic/scoring';

export interface Observation {
  facts: RepetitionFacts;
  /** Lines that are not events (torn, forged, not JSON): ignored, and counted for the report. */
  malformed: number;
  /** Non-blank lines read. */
  lines: number;
  /** False when the events file does not exist (no facts, no lines). */
  found: boolean;
}

export async function observeEvents(path: string, experiment: Experiment): Promise<Observation> {
  if (!existsSync(path)) return { facts: emptyFacts(), malformed: 0, lines: 0, found: false };
  const observer = new RepetitionObserver(experiment);
  const { malformed, lines } = await streamEvents(path, (event) => observer.observe(event));
  return { facts: observer.facts(), malformed, lines, found: true };
}
