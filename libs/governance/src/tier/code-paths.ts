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

/** Split the text of call arguments at top-level commas. */
export function splitArgs(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  const re = new RegExp(`${STRING}|[()[\\]{},]`, 'g');
  for (const m of text.matchAll(re)) {
    const t = m[0];
    if (t === '(' || t === '[' || t === '{') depth++;
    else if (t === ')' || t === ']' || t === '}') {
      if (depth-- === 0) {
        out.push(text.slice(start, m.index));
        return out;
      }
    } else if (t === ',' && depth === 0) {
      out.push(text.slice(start, m.index));
      start = m.index + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

const HOME_EXPR =
  /^(os\.path\.expanduser\(\s*['"]~['"]\s*\)|os\.homedir\(\)|require\(['"](node:)?os['"]\)\.homedir\(\)|process\.env\.HOME|process\.env\[['"]HOME['"]\]|Path\.home\(\)|pathlib\.Path\.home\(\)|Dir\.home|ENV\[['"]HOME['"]\]|\$ENV\{HOME\}|os\.environ\[['"]HOME['"]\]|os\.getenv\(['"]HOME['"]\)|getenv\(['"]HOME['"]\)|\$_SERVER\[['"]HOME['"]\]|expanduser\(['"]~['"]\))$/;
const CWD_EXPR = /^(os\.getcwd\(\)|process\.cwd\(\)|Dir\.pwd|getcwd\(\)|Path\.cwd\(\)|pathlib\.Path\.cwd\(\)|Path\(\)|__dirname|['"]\.['"])$/;

/** A leading interpolation of home in a literal (`"$ENV{HOME}/.ssh"`, `"#{Dir.home}/x"`, `` `${os.homedir()}/x` ``, `f"{Path.home()}/x"`) as `~`. */
function homeInterpolated(body: string): string {
  const m = /^(?:\$ENV\{HOME\}|[#$]?\{([^{}]*)\})(?=\/|$)/.exec(body);
  return m && (m[1] === undefined || HOME_EXPR.test(m[1].trim())) ? `~${body.slice(m[0].length)}` : body;
}

/** The path an argument expression names: a literal, home, the cwd, a join of those, or UNKNOWN. */
export function pathExpression(expr: string): string {
  const e = expr
    .trim()
    .replace(/\.expanduser\(\s*\)$/, '')
    .replace(/^(?:Path|pathlib\.Path|new\s+File|File)\((.*)\)$/s, '$1')
    .trim();
  const lit = LITERAL.exec(e);
  if (lit && lit[0].length === e.length) return homeInterpolated(unquote(lit[1]!));
  if (HOME_EXPR.test(e)) return '~';
  if (CWD_EXPR.test(e)) return '.';
  const expanded = /^os\.path\.expanduser\(\s*(['"])(~[^'"]*)\1\s*\)$/.exec(e);
  if (expanded) return expanded[2]!;
  const join = /^(?:os\.path\.join|path\.join|path\.resolve|File\.join|join)\((.*)\)$/s.exec(e);
  if (join)
    return splitArgs(join[1]! + ')')
      .map(pathExpression)
      .join('/');
  const parts = splitConcat(e);
  if (parts.length > 1) return parts.map(pathExpression).join('');
  return UNKNOWN;
}

/** `a + '/x'` (JS, Python, Ruby) or `a . '/x'` (PHP, Perl) at the top level: its parts. */
function splitConcat(expr: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (const m of expr.matchAll(new RegExp(`${STRING}|[()[\\]{}]|\\s[+.]\\s|\\+`, 'g'))) {
    const t = m[0];
    if (t === '(' || t === '[' || t === '{') depth++;
    else if (t === ')' || t === ']' || t === '}') depth--;
    else if (depth === 0 && (t === '+' || /^\s[+.]\s$/.test(t))) {
      out.push(expr.slice(start, m.index));
      start = m.index + t.length;
    }
  }
  out.push(expr.slice(start));
  return out;
}
