// The literals, argument lists and paths of interpreter code, read without running it: a string in
// any of the languages' quotes, a call's arguments split at top-level commas, and the path an
// argument expression names (a literal, home in any spelling, the cwd, a join or a concatenation of
// those), UNKNOWN when it is anything else.
import { UNKNOWN } from '../paths.ts';

export const STRING = String.raw`(?:'''[\s\S]*?'''|"""[\s\S]*?"""|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\x60(?:[^\x60\\]|\\.)*\x60)`;
export const LITERAL = new RegExp(`^\\s*[frbuFRBU]{0,2}(${STRING})`);

export function unquote(lit: string): string {
  const body = lit.startsWith("'''") || lit.startsWith('"""') ? lit.slice(3, -3) : lit.slice(1, -1);
  return body.replace(/\\(.)/g, (_, c: string) => ({ n: '\n', t: '\t' })[c] ?? c);
}

const OPENERS = new Set(['(', '[', '{']);
const CLOSERS = new Set([')', ']', '}']);

/**
 * `text` cut at each separator outside strings and brackets. `separator` is a pattern for one
 * separator token; with `closes`, a closing bracket nothing opened ends the text (a call's arguments).
 */
export function splitTopLevel(text: string, separator: string, closes: boolean): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (const m of text.matchAll(new RegExp(`${STRING}|[()[\\]{}]|${separator}`, 'g'))) {
    const t = m[0];
    if (OPENERS.has(t)) depth++;
    else if (CLOSERS.has(t)) {
      if (depth-- === 0 && closes) {
        out.push(text.slice(start, m.index));
        return out;
      }
    } else if (depth === 0 && !/^['"\x60]/.test(t)) {
      // Neither a bracket nor a string: a separator (which may look around it: PHP's `f()."/x"`).
      out.push(text.slice(start, m.index));
      start = m.index + t.length;
    }
  }
  out.push(text.slice(start));
  return out;
}

/** Split the text of call arguments at top-level commas. */
export function splitArgs(text: string): string[] {
  return splitTopLevel(text, ',', true);
}

const HOME_EXPR =
  /^(os\.path\.expanduser\(\s*['"]~['"]\s*\)|os\.homedir\(\)|require\(['"](node:)?os['"]\)\.homedir\(\)|process\.env\.HOME|process\.env\[['"]HOME['"]\]|Path\.home\(\)|pathlib\.Path\.home\(\)|Dir\.home|ENV\[['"]HOME['"]\]|\$ENV\{HOME\}|os\.environ\[['"]HOME['"]\]|os\.getenv\(['"]HOME['"]\)|getenv\(['"]HOME['"]\)|\$_SERVER\[['"]HOME['"]\]|expanduser\(['"]~['"]\))$/;
const CWD_EXPR = /^(os\.getcwd\(\)|process\.cwd\(\)|Dir\.pwd|getcwd\(\)|Path\.cwd\(\)|pathlib\.Path\.cwd\(\)|Path\(\)|__dirname|['"]\.['"])$/;

const TEMP_DIR = /^(?:os\.tmpdir\(\)|require\(['"](?:node:)?os['"]\)\.tmpdir\(\)|tempfile\.gettempdir\(\)|Dir\.tmpdir)$/;
const NEW_TEMP_DIR = /^(?:tempfile\.mkdtemp\(\s*(?:(?:prefix|suffix)\s*=\s*(?:'[^'\\]*'|"[^"\\]*")\s*,?\s*)*\)|Dir\.mktmpdir(?:\(\s*\))?)$/;

/** A leading interpolation of home in a literal (`"$ENV{HOME}/.ssh"`, `"#{Dir.home}/x"`, `` `${os.homedir()}/x` ``, `f"{Path.home()}/x"`) as `~`. */
function homeInterpolated(body: string): string {
  const m = /^(?:\$ENV\{HOME\}|[#$]?\{([^{}]*)\})(?=\/|$)/.exec(body);
  return m && (m[1] === undefined || HOME_EXPR.test(m[1].trim())) ? `~${body.slice(m[0].length)}` : body;
}

/**
 * What a string literal names once interpolated: in an f-string (`f'{d}/x'`), a template literal
 * (`${d}`) or a double-quoted string of the languages that interpolate (`"#{d}"`, `"$d/x"`), a bound
 * name is its value and anything else is UNKNOWN, as an unresolved shell word is.
 */
function interpolated(raw: string, body: string, names: ReadonlyMap<string, string>): string {
  const quote = raw.trim().replace(/^[A-Za-z]+/, '')[0];
  const pattern = /^[rbuRBU]?[fF]/.test(raw.trim())
    ? /\{\{|\}\}|\{([^{}]*)\}/g
    : quote === '`'
      ? /\$\{([^{}]*)\}/g
      : quote === '"'
        ? /#\{([^{}]*)\}|\$\{?([A-Za-z_]\w*)\}?/g
        : null;
  if (!pattern) return body;
  // The callback's third argument is the second group, or the offset where there is none.
  return body.replace(pattern, (whole: string, inner: unknown, sigil: unknown) => {
    if (whole === '{{') return '{';
    if (whole === '}}') return '}';
    const name = typeof sigil === 'string' ? `$${sigil}` : String(inner).trim();
    return names.get(name) ?? names.get(name.replace(/^\$/, '')) ?? UNKNOWN;
  });
}

/**
 * The path an argument expression names: a literal, home, the cwd, a join of those, or UNKNOWN.
 * `names`: the values the code's names hold here (code-vars.ts), one each.
 */
export function pathExpression(expr: string, names: ReadonlyMap<string, string> = new Map()): string {
  const e = expr
    .trim()
    .replace(/\.expanduser\(\s*\)$/, '')
    .replace(/^(?:Path|pathlib\.Path|new\s+File|File)\((.*)\)$/s, '$1')
    .trim();
  const lit = LITERAL.exec(e);
  if (lit && lit[0].length === e.length) return interpolated(lit[0], homeInterpolated(unquote(lit[1]!)), names);
  if (HOME_EXPR.test(e)) return '~';
  if (CWD_EXPR.test(e)) return '.';
  const bound = names.get(e);
  if (bound !== undefined) return bound;
  if (TEMP_DIR.test(e)) return '/tmp';
  // A new directory of its own: mkdtemp() in the temp directory, mkdtempSync(prefix) beside its prefix.
  if (NEW_TEMP_DIR.test(e)) return '/tmp/tmp-new';
  const made = /^(?:await\s+)?(?:fs\.|fsp\.|fs\.promises\.)?mkdtemp(?:Sync)?\((.*)\)$/s.exec(e);
  if (made) return `${pathExpression(splitArgs(made[1]! + ')')[0] ?? '', names)}XXXXXX`;
  const expanded = /^(?:(?:os|__import__\(\s*['"]os['"]\s*\))\.path\.expanduser|File\.expand_path)\(\s*(['"])(~[^'"]*)\1\s*\)$/.exec(e);
  if (expanded) return expanded[2]!;
  const join = /^(?:os\.path\.join|path\.join|path\.resolve|File\.join|join)\((.*)\)$/s.exec(e);
  if (join)
    return splitArgs(join[1]! + ')')
      .map((a) => pathExpression(a, names))
      .join('/');
  const parts = splitConcat(e);
  if (parts.length > 1) return parts.map((a) => pathExpression(a, names)).join('');
  return UNKNOWN;
}

/** `a + '/x'` (JS, Python, Ruby), `a . '/x'` or `f()."/x"` (PHP, Perl) or `a .. '/x'` (Lua) at the top level: its parts. */
function splitConcat(expr: string): string[] {
  return splitTopLevel(expr, String.raw`\s*\.\.\s*|\s[+.]\s|(?<=[)'"\]}])\.(?=['"$])|\+`, false);
}
