// Whether a text the proxy is about to pass on or write down quotes part of a real provider key it
// holds (keys.ts). A provider's error answer may: OpenAI's 401 prints the key it was sent, masked
// (`sk-PMafP*****…E873`, `sk-proj-****…abcd`, `sk-0rF****1pS`), and an error from a gateway may
// quote it whole. Since the stand-in is swapped for the real key on the way out, that key is ours,
// and the agent must never see any of it.
//
// A text "quotes" a key when it holds any FRAGMENT (6 or more consecutive characters of the key:
// the scheme prefix counts, so `sk-proj-` alone in an error is enough), or a MASKED form: a key's
// last 3 or 4 characters after a run of mask characters (`****abcd`, `…abcd`, `sk-...abcd`), after
// the key's scheme prefix itself (`sk-abcd`), or after "ending in" (`key ending in abcd`). Masked
// forms are matched only in what the proxy withholds (error answers, log lines), where a false
// match costs an error message's wording, never a call.
//
// The check is a set lookup per position (all 6-character windows of all keys in one Set) plus a
// search for each key's last characters, looking back from each: linear in the text, microseconds
// for an error body.
import type { KeySwaps } from './keys.ts';

/** The shortest run of a key's characters that counts as quoting it. */
export const FRAGMENT_CHARS = 6;

/**
 * Mask characters, and how many in a row make a mask: `**`, `..`, `…`, `xxx`. Masks are found by
 * looking back from each place a key's last characters occur, never with a regular expression
 * whose runs could backtrack over a body of a million stars.
 */
const MASK_RUNS: Record<string, number> = { '*': 2, '\u2022': 2, '\u25cf': 2, '\u00b7': 2, '#': 2, '.': 2, '\u2026': 1, x: 3, X: 3 };
const MASK_WORDS = ['[redacted]', '[REDACTED]', '[masked]', '[hidden]'];
/** "key ending in abcd", "ends with: `abcd`" — matched on the few characters before the last four. */
const ENDING_IN = /[Ee]nd(?:s|ing)?\s+(?:in|with)\s*[:'"\x60]?\s*$/;

/** Whether a mask (after at most one space) ends at `end` in `text`. */
function maskBefore(text: string, end: number): boolean {
  let i = end - 1;
  if (text[i] === ' ') i--;
  const c = text[i];
  if (c === undefined) return false;
  const needed = MASK_RUNS[c];
  if (needed !== undefined) {
    let run = 0;
    while (run < needed && text[i - run] === c) run++;
    return run >= needed;
  }
  return c === ']' && MASK_WORDS.some((w) => text.startsWith(w, i + 1 - w.length));
}

interface MaskedForms {
  last4: string;
  last3: string;
  /** The scheme and each shorter scheme it extends (`sk-proj-`, `sk-`): followed by the last four. */
  prefixes: string[];
}

/** The scheme prefix a key starts with (`sk-`, `sk-proj-`, `sk-ant-api03-`, Google's `AIza`), or ''. */
export function schemePrefix(key: string): string {
  if (key.startsWith('AIza')) return 'AIza';
  return /^(?:[A-Za-z0-9]{1,6}-){1,3}/.exec(key.slice(0, 24))?.[0] ?? '';
}

/** The scheme prefix and the shorter ones it is built of: `sk-ant-api03-`, `sk-ant-`, `sk-`. */
function schemePrefixes(key: string): string[] {
  const prefix = schemePrefix(key);
  if (prefix === 'AIza') return [prefix];
  const out: string[] = [];
  for (let at = prefix.indexOf('-'); at !== -1; at = prefix.indexOf('-', at + 1)) out.push(prefix.slice(0, at + 1));
  return out;
}

export class KeyFragments {
  private readonly windows = new Set<string>();
  private readonly masked: MaskedForms[] = [];
  /** Keys shorter than a fragment (no real provider's is): quoted only whole. */
  private readonly whole: string[] = [];

  constructor(keys: readonly string[]) {
    for (const key of keys) {
      if (key.length < FRAGMENT_CHARS) {
        if (key.length > 0) this.whole.push(key);
        continue;
      }
      for (let i = 0; i + FRAGMENT_CHARS <= key.length; i++) this.windows.add(key.slice(i, i + FRAGMENT_CHARS));
      this.masked.push({ last4: key.slice(-4), last3: key.slice(-3), prefixes: schemePrefixes(key) });
    }
  }

  /** The fragments of every real key `swaps` holds (the stand-ins are the sandbox's own and not secret). */
  static of(swaps: KeySwaps): KeyFragments {
    return new KeyFragments(Object.values(swaps).map((swap) => swap.real));
  }

  /** Whether there is any key to look for: without one, nothing need be checked at all. */
  get active(): boolean {
    return this.windows.size > 0 || this.whole.length > 0;
  }

  /**
   * Whether `text` quotes any of the keys, in full, in part or masked; with `from`, only a quote that
   * ends after it counts (what comes before was judged already: stream-guard.ts).
   */
  found(text: string, from = 0): boolean {
    if (!this.active || text.length === 0) return false;
    for (let i = Math.max(0, from - FRAGMENT_CHARS + 1); i + FRAGMENT_CHARS <= text.length; i++) {
      if (this.windows.has(text.slice(i, i + FRAGMENT_CHARS))) return true;
    }
    if (this.masked.some((forms) => quotesMasked(text, forms, from))) return true;
    return this.whole.some((key) => text.lastIndexOf(key) + key.length > from && text.includes(key));
  }
}

/** Whether `text` holds a key's last three or four characters after a mask, its scheme or "ending in", ending after `from`. */
function quotesMasked(text: string, { last4, last3, prefixes }: MaskedForms, from: number): boolean {
  // Every last four holds a last three at its offset 1: one search finds both.
  for (let at = text.indexOf(last3, Math.max(0, from - last3.length)); at !== -1; at = text.indexOf(last3, at + 1)) {
    if (maskBefore(text, at)) return true;
    const start = at - 1;
    if (start < 0 || text[start] !== last4[0]) continue;
    if (maskBefore(text, start) || prefixes.some((p) => text.startsWith(p, start - p.length))) return true;
    if (ENDING_IN.test(text.slice(Math.max(0, start - 24), start))) return true;
  }
  return false;
}

/** One shared instance for a proxy without keys: every check is a single property read. */
export const NO_KEYS = new KeyFragments([]);
