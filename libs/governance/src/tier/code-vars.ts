// The paths a name in interpreter code holds, where every binding of it is one the tier can read:
// an assignment (`d = 'build'`, `const out = path.join(__dirname, 'dist')`, `my $d = "tmp"`), or a
// loop over a literal list, a glob or a directory's listing (`for d in ('build', 'dist')`, a
// comprehension, `for (const d of ['dist'])`, `['dist'].forEach(d => …)`, `%w[tmp log].each do |d|`,
// `foreach my $f (glob "*.bak")`, `foreach (['a'] as $d)`, `for c in Path('build').iterdir()`,
// `for n in os.listdir(root)`), each read with the values the other names hold (`p = Path(d)`). A
// name is resolved only when each of its other uses is a plain argument of a call (`rmtree(d)`,
// `os.path.join(d, 'x')`), a method or attribute that leaves it as it is (`p.exists()`, `c.name`), or
// the start of another name's value (`q = p`): as a parameter, a destructuring target, an
// augmented or walrus assignment, an alias (`as d`), or in code that reaches names indirectly (eval,
// globals(), variable variables) it is not, and its paths stay UNKNOWN, the worst case.
import { UNKNOWN } from '../paths.ts';
import { LITERAL, pathExpression, splitTopLevel, STRING, unquote } from './code-paths.ts';

/** Code that can bind a name without naming it: nothing is resolved in it. */
const INDIRECT =
  /\b(globals|locals|vars|setattr|exec|eval|extract|parse_str|compact|Function|instance_variable_set|local_variable_set|binding)\s*\(|__dict__|sys\.modules|__main__|__builtins__|globalThis|\bglobal\.|\bwindow\.|\bthis\.|GLOBALS|\$\$|\$\{\s*['"$]|\$(?:main)?::|\*\w+\s*=/;
const NAME = String.raw`\$?[A-Za-z_]\w*`;
/** A name as a whole word: `d`, not the d of `$d`, `x.d` or `do`. */
const wordOf = (name: string): RegExp => new RegExp(`(?<![\\w$.@%])${name.replace('$', '\\$')}(?![\\w$])`, 'g');
/** Words before `(` that open a declaration or a statement, not a call. */
const NOT_CALLS = new Set(
  'def class function sub fn func lambda new my our local if elif while for foreach until unless return catch except with switch case when and or not in of is'.split(
    ' ',
  ),
);
/** Words before a declared function's name (`def f(d)`): its brackets hold parameters, not arguments. */
const DECLARES = new Set(['def', 'function', 'sub', 'fn', 'func', 'class', 'new']);
/** The most values one name may take, and the most combinations one path expression is read with. */
const MAX_VALUES = 16;

/** What a binding gives its name, read with the values the code's other names hold there. */
type Reader = (names: ReadonlyMap<string, string[]>) => string[];

interface Site {
  /** Where the name stands in the code. */
  at: number;
  read: Reader;
}

/** Methods that change the value they are called on (Ruby's strings are mutable; `!` methods too), or reach names by their own. */
const MUTATORS =
  /^(replace|concat|insert|prepend|clear|push|append|extend|pop|shift|unshift|splice|update|setdefault|chop|chomp|squeeze|send|instance_eval|_\w*)$/;

/** The code with every string's inside blanked, same length: offsets stay those of the code. */
function blankStrings(code: string): string {
  return code.replace(new RegExp(STRING, 'g'), (s) => {
    const q = s.startsWith("'''") || s.startsWith('"""') ? 3 : 1;
    return s.slice(0, q) + ' '.repeat(s.length - 2 * q) + s.slice(-q);
  });
}

/** The elements of a literal list (`['a', 'b']`, `('a',)`, `%w[a b]`, `qw(a b)`, `array('a')`), or null. */
function listItems(expr: string, names: ReadonlyMap<string, string[]>): string[] | null {
  const e = expr.trim();
  const words = /^(?:%w|qw)\s*[[(](.*)[\])]$/s.exec(e);
  if (words) return words[1]!.trim().split(/\s+/).filter(Boolean);
  const list = /^(?:array\s*)?[[(](.*)[\])]$/s.exec(e);
  if (!list) return null;
  const items = splitTopLevel(list[1]!, ',', false)
    .map((x) => x.trim())
    .filter((x) => x !== '');
  return items.flatMap((x) => boundPaths(x, names));
}

/** What a glob call lists, as the pattern itself (`glob.glob('**\/*.pyc')`, `Path('.').rglob('x')`), or null. */
function globItems(expr: string, names: ReadonlyMap<string, string[]>): string[] | null {
  const e = expr.trim();
  const plain = /^(?:glob\.i?glob|glob|Dir\.glob|File\.glob)\s*\(?\s*([^,)]*)/s.exec(e) ?? /^Dir\[([^\]]*)\]$/.exec(e) ?? /^<([^<>]*)>$/.exec(e);
  if (plain) {
    const lit = LITERAL.exec(plain[1]!);
    return [lit && lit[0].trim() === plain[1]!.trim() ? unquote(lit[1]!) : UNKNOWN];
  }
  const tree = /^(.*)\.(r?)glob\(\s*(.*)\)$/s.exec(e);
  if (!tree) return null;
  const lit = LITERAL.exec(tree[3]!);
  if (!lit || lit[0].trim() !== tree[3]!.trim()) return [UNKNOWN];
  return boundPaths(tree[1]!, names).map((base) => `${base}/${tree[2] ? '**/' : ''}${unquote(lit[1]!)}`);
}

/**
 * What a directory listing yields: `Path(X).iterdir()` the paths in X; `os.listdir(X)`,
 * `fs.readdirSync(X)` the names in it, any but `.` and `..`, which `*` stands for (as for ls).
 */
function listingItems(expr: string, names: ReadonlyMap<string, string[]>): string[] | null {
  const e = expr.trim().replace(/^await\s+/, '');
  const entries = /^(.*)\.iterdir\(\s*\)$/s.exec(e);
  if (entries) return boundPaths(entries[1]!, names).map((dir) => `${dir}/*`);
  return /^(?:os\.listdir|os\.scandir|fs\.readdirSync|fs\.readdir|fsp\.readdir|fs\.promises\.readdir|readdirSync|Dir\.children)\s*\(/.test(e) ? ['*'] : null;
}

const sourceValues = (expr: string, names: ReadonlyMap<string, string[]>): string[] =>
  listItems(expr, names) ?? globItems(expr, names) ?? listingItems(expr, names) ?? [UNKNOWN];

/** The text from `from` to the end of its statement (a top-level `;`, newline, or an unmatched closer). */
function statement(code: string, from: number, ends = ';|\\n'): string {
  return splitTopLevel(code.slice(from), ends, true)[0] ?? '';
}

/** Every binding site the tier reads, by name. */
function bindingSites(code: string, blank: string): Map<string, Site[]> {
  const sites = new Map<string, Site[]>();
  const add = (name: string, at: number, read: Reader): void => {
    sites.set(name, [...(sites.get(name) ?? []), { at, read }]);
  };
  const loop =
    (source: string): Reader =>
    (names) =>
      sourceValues(source, names);
  // Where the name stands in a match: its first occurrence as a whole word (`for n in`: not in `in`).
  const nameAt = (m: RegExpMatchArray, name: string): number => m.index! + m[0].search(wordOf(name));
  for (const m of blank.matchAll(new RegExp(`(?:^|[;,\\n{}])[ \\t]*(?:(?:const|let|var|my|our|local)\\s+)?(${NAME})[ \\t]*=(?![=~>])`, 'g'))) {
    const value = statement(code, m.index + m[0].length);
    add(m[1]!, nameAt(m, m[1]!), (names) => boundPaths(value, names));
  }
  // Python's for statement and comprehension clause.
  for (const m of blank.matchAll(new RegExp(`\\bfor[ \\t]+(${NAME})[ \\t]+in[ \\t]`, 'g'))) {
    add(m[1]!, nameAt(m, m[1]!), loop(statement(code, m.index + m[0].length, ':|\\bif\\b|\\bfor\\b|;|\\n')));
  }
  for (const m of blank.matchAll(new RegExp(`\\bfor\\s*\\(\\s*(?:const|let|var)\\s+(${NAME})\\s+of\\s`, 'g'))) {
    add(m[1]!, nameAt(m, m[1]!), loop(statement(code, m.index + m[0].length)));
  }
  for (const m of blank.matchAll(new RegExp(`\\bfor(?:each)?\\s+(?:my\\s+)?(\\$\\w+)\\s*\\(`, 'g'))) {
    const source = statement(code, m.index + m[0].length);
    add(m[1]!, nameAt(m, m[1]!), loop(/^\s*(?:glob\b|<)/.test(source) ? source : `(${source})`));
  }
  for (const m of blank.matchAll(new RegExp(`\\bforeach\\s*\\(`, 'g'))) {
    const inner = statement(code, m.index + m[0].length);
    const as = /^(.*)\s+as\s+(\$\w+)\s*$/s.exec(inner);
    if (as) add(as[2]!, m.index + m[0].length + inner.lastIndexOf(as[2]!), loop(as[1]!));
  }
  // `LIST.forEach(d => …)`, `.map((d) => …)`, `LIST.each do |d|`, `LIST.each { |d| … }`.
  const iterators = new RegExp(
    `\\.(?:forEach|map)\\(\\s*(?:\\(\\s*(${NAME})\\s*\\)|(${NAME}))\\s*=>|\\.each\\s*(?:do\\s*|\\{\\s*)\\|\\s*(${NAME})\\s*\\|`,
    'g',
  );
  for (const m of blank.matchAll(iterators)) {
    const name = m[1] ?? m[2] ?? m[3]!;
    add(name, nameAt(m, name), loop(receiver(code, blank, m.index)));
  }
  return sites;
}

/** The expression a method is called on, ending just before `end` (`['a', 'b']` in `['a', 'b'].forEach`). */
function receiver(code: string, blank: string, end: number): string {
  let depth = 0;
  for (let i = end - 1; i >= 0; i--) {
    const c = blank[i]!;
    if (c === ')' || c === ']') depth++;
    else if (c === '(' || c === '[') {
      if (depth-- === 0) return code.slice(i + 1, end);
    } else if (depth === 0 && /[\s;=,{]/.test(c)) return code.slice(i + 1, end);
  }
  return code.slice(0, end);
}

/** Whether a use of a name at `at` (length `len`) is a plain argument of a call: `f(d)`, `join(d, 'x')`, `f(d + '/x')`. */
function plainArgument(blank: string, at: number, len: number): boolean {
  if (!/(?:[(,]|(?<!\+)\+|\s\.)\s*$/.test(blank.slice(0, at))) return false;
  if (!/^\s*(?:[),]|\+(?![=+])|\.\s)/.test(blank.slice(at + len))) return false;
  // The bracket it stands in must open a call: a name before `(` that is not a declaration keyword.
  let depth = 0;
  for (let i = at - 1; i >= 0; i--) {
    const c = blank[i]!;
    if (c === ')' || c === ']' || c === '}') depth++;
    else if (c === '(' || c === '[' || c === '{') {
      if (depth-- > 0) continue;
      // `def f(d)`, `function f(d)`, `sub f(d)`: the word before the name is a keyword too.
      const callee = c === '(' ? /(?:(\w+)\s+)?([\w$.]+)\s*$/.exec(blank.slice(0, i)) : null;
      return callee !== null && !NOT_CALLS.has(callee[2]!.split('.').pop()!) && !DECLARES.has(callee[1] ?? '');
    }
  }
  return false;
}

/** Whether a use of a name reads it through a method or attribute that leaves it as it is: `p.exists()`, `child.name`, `d.startsWith(x)`. */
function methodRead(blank: string, at: number, len: number): boolean {
  const m = /^\s*\.\s*([A-Za-z_]\w*)(!|\s*=(?!=))?/.exec(blank.slice(at + len));
  return m !== null && m[2] === undefined && !MUTATORS.test(m[1]!);
}

/** A use that is the whole start of another name's value (`q = p`, `const out = dir + '/x'`): read where that name is bound. */
const ASSIGNED_FROM = new RegExp(`(?:^|[;\\n{}])[ \\t]*(?:(?:const|let|var|my|our|local)\\s+)?${NAME}[ \\t]*=[ \\t]*$`);
const assignedFrom = (blank: string, at: number): boolean => ASSIGNED_FROM.test(blank.slice(Math.max(0, at - 200), at));

/** Whether the mention at `at` is text in a one-line string, outside any `{…}` an interpolating string evaluates (`print("emptied build/")`). */
function textMention(strings: readonly RegExpExecArray[], at: number): boolean {
  const string = strings.find((m) => m.index < at && at < m.index + m[0].length);
  if (!string || string[0].includes('\n')) return false;
  const before = string[0].slice(0, at - string.index);
  return before.split('{').length === before.split('}').length;
}

/** Whether the mention of `name` at `at` is an interpolation of it alone in a string that interpolates: `f'{d}'`, `` `${d}` ``, `"#{d}"`, `"$d/x"`. */
function interpolation(code: string, strings: readonly RegExpExecArray[], at: number, name: string): boolean {
  const string = strings.find((m) => m.index < at && at < m.index + m[0].length);
  if (!string) return false;
  const quote = string[0].replace(/^[A-Za-z]+/, '')[0];
  const braced = code[at - 1] === '{' && code[at + name.length] === '}';
  if (/^[rbuRBU]?[fF]/.test(string[0])) return braced && code[at - 2] !== '{';
  if (quote === '`') return braced && code[at - 2] === '$';
  if (quote !== '"') return false;
  return (braced && (code[at - 2] === '#' || code[at - 2] === '$')) || (name.startsWith('$') && !/^[\w[{-]/.test(code.slice(at + name.length)));
}

/** The values of every name the code binds in ways the tier reads, and uses only as a call's argument. */
export function codeBindings(code: string): Map<string, string[]> {
  if (INDIRECT.test(code)) return new Map();
  const blank = blankStrings(code);
  // Every string with its prefix (`f'…'`), read once: mentions inside them are looked up here.
  const strings = [...code.matchAll(new RegExp(`[A-Za-z]{0,2}${STRING}`, 'g'))];
  const found: [string, Site[]][] = [];
  for (const [name, sites] of bindingSites(code, blank)) {
    const at = new Set(sites.map((s) => s.at));
    const uses = [...blank.matchAll(wordOf(name))].map((m) => m.index);
    // Inside a string, an interpolation of the name alone is a read and a mention in the text of a
    // one-line string is no use; any other mention (in an interpolated expression, or in what the
    // string reader took for a string: an apostrophe in a comment) is a use of unknown kind.
    const inStrings = [...code.matchAll(wordOf(name))].map((m) => m.index).filter((u) => !uses.includes(u));
    if (!inStrings.every((u) => interpolation(code, strings, u, name) || textMention(strings, u))) continue;
    if (!uses.every((u) => at.has(u) || plainArgument(blank, u, name.length) || methodRead(blank, u, name.length) || assignedFrom(blank, u))) continue;
    found.push([name, sites]);
  }
  // Each name's values read with the others' (`p = Path(d)` in a loop over a list of `d`), a few rounds deep.
  const read = (sites: Site[], names: ReadonlyMap<string, string[]>): string[] => {
    const values = [...new Set(sites.flatMap((s) => s.read(names)))];
    return values.length > MAX_VALUES ? [UNKNOWN] : values;
  };
  let resolved = new Map(found.map(([name, sites]) => [name, read(sites, new Map())]));
  for (let round = 0; round < 3; round++) {
    const others = (name: string) => new Map([...resolved].filter(([n]) => n !== name));
    resolved = new Map(found.map(([name, sites]) => [name, read(sites, others(name))]));
  }
  return resolved;
}

/** The paths an argument expression names with the code's bindings: one for each combination of the values of the names in it. */
export function boundPaths(expr: string, bindings: ReadonlyMap<string, string[]>): string[] {
  const names = [...bindings.keys()].filter((n) => wordOf(n).test(expr));
  let combos: Map<string, string>[] = [new Map<string, string>()];
  for (const n of names) {
    combos = combos.flatMap((c) => bindings.get(n)!.map((v) => new Map<string, string>([...c, [n, v]])));
    if (combos.length > MAX_VALUES) return [UNKNOWN];
  }
  return [...new Set(combos.map((c) => pathExpression(expr, c)))];
}
