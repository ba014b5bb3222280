// "Did you mean" suggestions for misspelled keys and ids: the nearest candidate by edit distance,
// offered only when it is close enough to be a plausible typo rather than a different word.
import { distance } from 'fastest-levenshtein';

/** The candidate nearest to `word`, or undefined when none is a plausible typo of it. */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = distance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  if (best === undefined) return undefined;
  // A word cut short (`destructive` for `destructive_attempt`) is a typo too, however far by edits.
  if (lower.length >= 4) {
    const extended = candidates.filter((c) => c.toLowerCase().startsWith(lower));
    if (extended.length === 1 && bestDistance > 0) return extended[0];
  }
  // A third of the longer word, at least 2: `retry_afer_s` -> `retry_after_s`, `toolerror` -> `tool.error`,
  // while `foo` does not become `tool`.
  const limit = Math.max(2, Math.floor(Math.max(word.length, best.length) / 3));
  return bestDistance <= limit ? best : undefined;
}

/** ` (did you mean "x"?)`, or ` (expected one of a, b, c)` when nothing is close. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const best = nearest(word, candidates);
  if (best !== undefined) return ` (did you mean "${best}"?)`;
  if (candidates.length === 0) return '';
  return ` (expected one of: ${candidates.join(', ')})`;
}
