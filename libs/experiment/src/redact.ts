// A placeholder's value is used, never shown: whatever its variable is called, it may be a secret, so
// every message and every printed copy of the experiment shows `${NAME}` where a value was put in.
// Messages quote a value whole (JSON-quoted, perhaps shortened by describeValue), so each substituted
// string is replaced in all those forms; a variable's value of MIN_VALUE_LENGTH characters or more is
// replaced wherever else it appears too. A shorter value is replaced only where its whole string
// appears: elsewhere it would hit ordinary text ("2" in "at most 20").
import { describeValue } from './issues.ts';

/** A string value whose placeholders were resolved. */
export interface Substitution {
  /** As written in the file, e.g. `*.${NPM_REGISTRY_DOMAIN}`. */
  template: string;
  /** With the values in, e.g. `*.example.org`. */
  resolved: string;
  /** Each variable whose value went in. */
  variables: { name: string; value: string }[];
}

const MIN_VALUE_LENGTH = 4;

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A function that rewrites text so that no substituted value shows; the identity when none was. */
export function placeholderRedactor(substitutions: readonly Substitution[]): (text: string) => string {
  const replacements = new Map<string, string>();
  const add = (needle: string, replacement: string) => {
    if (needle !== '' && needle !== replacement && !replacements.has(needle)) replacements.set(needle, replacement);
  };
  for (const { template, resolved } of substitutions) {
    add(describeValue(resolved), JSON.stringify(template));
    add(JSON.stringify(resolved), JSON.stringify(template));
    add(resolved, template);
  }
  for (const { variables } of substitutions) {
    for (const { name, value } of variables) {
      if (value.length < MIN_VALUE_LENGTH) continue;
      add(JSON.stringify(value).slice(1, -1), `\${${name}}`);
      add(value, `\${${name}}`);
    }
  }
  if (replacements.size === 0) return (text) => text;
  // One pass, longest needle first: a replacement is never searched again, and a whole value wins
  // over a variable's value inside it.
  const needles = [...replacements.keys()].sort((a, b) => b.length - a.length);
  const pattern = new RegExp(needles.map(escapeRegExp).join('|'), 'g');
  return (text) => text.replace(pattern, (match) => replacements.get(match) ?? match);
}

/** A copy of plain data (the experiment) with every string rewritten by `redact`; keys are kept. */
export function redactStrings<T>(value: T, redact: (text: string) => string): T {
  if (typeof value === 'string') return redact(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => redactStrings(item, redact)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactStrings(item, redact)])) as T;
  }
  return value;
}
