// What a rule subject looks at in a tool call's input: the shell command it runs, the paths it
// touches, every string it carries, the hosts its URLs name. Harnesses spell these differently
// (Claude `command`, Codex `cmd` or an argv array, Cursor `file_path`), so all are read here.

const PATH_KEYS = ['file_path', 'path', 'notebook_path', 'filePath', 'target_file', 'filename', 'source', 'destination', 'directory', 'dir'];
const SQL_KEYS = ['query', 'sql', 'statement', 'statements'];

const quote = (word: string): string => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);

function asObject(input: unknown): Record<string, unknown> | null {
  return typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : null;
}

/** The shell command line a call runs, or null for a call that runs none. */
export function commandOf(input: unknown): string | null {
  const obj = asObject(input);
  if (!obj) return null;
  const args = obj.args ?? obj.argv ?? obj.arguments;
  const argWords = Array.isArray(args) && args.every((w) => typeof w === 'string') ? args.map(quote) : [];
  for (const key of ['command', 'cmd']) {
    const v = obj[key];
    if (typeof v === 'string') return [v, ...argWords].join(' ');
    if (Array.isArray(v) && v.length > 0 && v.every((w) => typeof w === 'string')) return v.map(quote).join(' ');
  }
  return null;
}

/** Paths the call names, as written. */
export function pathsOf(input: unknown): string[] {
  const obj = asObject(input);
  if (!obj) return [];
  const out: string[] = [];
  for (const key of [...PATH_KEYS, 'paths']) {
    const v = obj[key];
    if (typeof v === 'string' && v !== '') out.push(v);
    else if (Array.isArray(v)) for (const p of v) if (typeof p === 'string' && p !== '') out.push(p);
  }
  return out;
}

/** SQL text handed to a database tool (`query`, `sql`, `statement`). */
export function sqlOf(input: unknown): string[] {
  const obj = asObject(input);
  return obj ? SQL_KEYS.map((k) => obj[k]).filter((v): v is string => typeof v === 'string') : [];
}

/** Every string value in the input, depth-first, but those under a key of `skip`. */
function walkStrings(input: unknown, skip: ReadonlySet<string>, out: string[], depth: number): string[] {
  if (depth > 32) return out;
  if (typeof input === 'string') out.push(input);
  else if (Array.isArray(input)) for (const v of input) walkStrings(v, skip, out, depth + 1);
  else if (input !== null && typeof input === 'object') for (const [k, v] of Object.entries(input)) if (!skip.has(k)) walkStrings(v, skip, out, depth + 1);
  return out;
}

/** Every string value in the input, depth-first. */
export const stringsOf = (input: unknown): string[] => walkStrings(input, new Set(), [], 0);

/** Fields of prose a person reads (an issue's title, a commit message): text about commands, not commands. */
const PROSE_KEYS = new Set(['title', 'body', 'description', 'summary', 'subject', 'comment', 'message', 'commit_message', 'commitMessage', 'note', 'notes']);

/** Every string value in the input but those of prose fields, depth-first: what an MCP tool may run or send. */
export const actionStringsOf = (input: unknown): string[] => walkStrings(input, PROSE_KEYS, [], 0);

/** Hosts of the URLs the input names (`url`, `uri`, `endpoint`). */
export function hostsOf(input: unknown): string[] {
  const obj = asObject(input);
  if (!obj) return [];
  const out: string[] = [];
  for (const key of ['url', 'uri', 'endpoint']) {
    const v = obj[key];
    if (typeof v !== 'string') continue;
    try {
      out.push(new URL(v).hostname);
    } catch {
      // not a URL: nothing to match
    }
  }
  return out;
}

/** A copy of the input with every string passed through `replace`. */
export function mapStrings(input: unknown, replace: (s: string) => string, depth = 0): unknown {
  if (depth > 32) return input;
  if (typeof input === 'string') return replace(input);
  if (Array.isArray(input)) return input.map((v) => mapStrings(v, replace, depth + 1));
  if (input !== null && typeof input === 'object') {
    return Object.fromEntries(Object.entries(input).map(([k, v]) => [k, mapStrings(v, replace, depth + 1)]));
  }
  return input;
}
