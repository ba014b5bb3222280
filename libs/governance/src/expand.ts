// Word expansion as far as a command line can be read statically: variables the line assigned
// (`X=/; rm -rf $X`), `${…}` forms, `$IFS`, braces, positional parameters, and command substitutions
// whose output is plain (`$(echo rm)`, `$(pwd)`, `$(mktemp -d)`, every pid `$(ps -e -o pid=)` lists). Everything else becomes UNKNOWN,
// which the path checks read as the worst place it could be. Each word yields a few candidates.
import { commandPath } from './disk.ts';
import { UNKNOWN, type PathContext } from './paths.ts';
import { parseShell, restoreLiterals } from './shell.ts';
import { printfEscapes, printfOutput } from './tier/printf.ts';
import { EVERY_PID, listsEveryProcess } from './tier/processes.ts';
import type { Stream } from './tier/streams.ts';

const MAX_CANDIDATES = 16;

/** What the analysis knows at a point of a command line. */
export interface Scope {
  ctx: PathContext;
  /** The current directory, absolute (may hold UNKNOWN). */
  dir: string;
  vars: Map<string, string[]>;
  aliases: Map<string, string>;
  /** `$1`…; null when the script's arguments are not known. */
  positional: string[] | null;
  /** `$0`, when the line gives one (`sh -c '$0 -rf ~' rm`). */
  arg0?: string;
  /** Files written earlier in the line whose content is known: a download, or a script's text. */
  files: Map<string, { remote: true } | { text: string }>;
  /** What the script's own standard input carries (a `sh -c` script reads its command's). */
  stdin?: Stream;
  depth: number;
}

export function newScope(ctx: PathContext, dir: string): Scope {
  return { ctx, dir, vars: new Map(), aliases: new Map(), positional: null, files: new Map(), depth: 0 };
}

const cap = <T>(xs: T[]): T[] => [...new Set(xs)].slice(0, MAX_CANDIDATES);

function product(parts: string[][]): string[] {
  let out = [''];
  for (const p of parts) out = cap(out.flatMap((prefix) => p.map((x) => prefix + x)));
  return out;
}

/** `{a,b}` lists (nested ones too); ranges and single items stay as written. */
export function expandBraces(word: string, depth = 0): string[] {
  if (depth > 4) return [word];
  let open = -1;
  let level = 0;
  for (let i = 0; i < word.length; i++) {
    if (word[i] === '{' && word[i - 1] !== '$') {
      if (level++ === 0) open = i;
    } else if (word[i] === '}' && level > 0 && --level === 0) {
      const items: string[] = [];
      let start = open + 1;
      let inner = 0;
      for (let j = open + 1; j < i; j++) {
        if (word[j] === '{') inner++;
        else if (word[j] === '}') inner--;
        else if (word[j] === ',' && inner === 0) {
          items.push(word.slice(start, j));
          start = j + 1;
        }
      }
      if (items.length === 0) continue;
      items.push(word.slice(start, i));
      const head = word.slice(0, open);
      return cap(items.flatMap((it) => expandBraces(head + it + word.slice(i + 1), depth + 1)));
    }
  }
  return [word];
}

function variable(name: string, scope: Scope): string[] {
  // A HOME the command line set itself (`HOME=/; rm -rf $HOME/etc`) is what it set.
  if (name === 'HOME') return scope.vars.get('HOME') ?? ['~'];
  if (name === 'PWD') return [scope.dir];
  if (name === 'IFS') return [' '];
  if (name === '0') return [scope.arg0 ?? 'sh'];
  if (/^\d+$/.test(name)) return [scope.positional?.[Number(name) - 1] ?? UNKNOWN];
  // The agent's own command line is run with no arguments: its `$@` is empty.
  if (name === '@' || name === '*') return [scope.positional ? scope.positional.join(' ') : scope.depth === 0 ? '' : UNKNOWN];
  return scope.vars.get(name) ?? [UNKNOWN];
}

/** The candidates of a `${…}` body. */
function braced(body: string, scope: Scope): string[] {
  // `${#X}`, `${#arr[@]}`, `${#}`: a length or a count, always a number.
  if (body.startsWith('#')) return ['0'];
  const m = /^([A-Za-z_][A-Za-z0-9_]*|\d+|[@*])(?:(:?[-=?+])(.*))?$/s.exec(body);
  if (!m) return [UNKNOWN]; // ${X#pat}, ${!X}, ${X/a/b}: not followed
  const [, name, op, word = ''] = m;
  const known = name === 'HOME' || name === 'PWD' || name === 'IFS' || scope.vars.has(name!) || (/^\d+$/.test(name!) && scope.positional !== null);
  const value = variable(name!, scope);
  if (op === undefined || op.endsWith('?')) return value;
  const alt = expandWord(word, scope);
  if (op.endsWith('+')) return known ? alt : ['', ...alt];
  return known ? value : cap([...alt, UNKNOWN]);
}

/** The output of a command substitution, when it is plain enough to know. */
function substitutionOutput(text: string, scope: Scope): string[] {
  if (scope.depth > 6) return [UNKNOWN];
  const script = parseShell(text);
  if (script.pipelines.length !== 1 || script.pipelines[0]!.commands.length !== 1) return [UNKNOWN];
  const argv = script.pipelines[0]!.commands[0]!.argv;
  const inner = { ...scope, depth: scope.depth + 1 };
  const args = argv.slice(1).filter((a) => !/^-[neE]+$/.test(a));
  const words = (xs: string[]): string[] => product(xs.map((a) => expandWord(a, inner)).flatMap((c, i) => (i === 0 ? [c] : [[' '], c])));
  switch (argv[0]) {
    case 'echo':
      return argv.slice(1).some((a) => /^-[nE]*e[neE]*$/.test(a)) ? words(args).map(printfEscapes) : words(args);
    case 'printf': {
      const [format, ...rest] = argv.slice(1).map((a) => expandWord(a, inner));
      if (format === undefined || format.length !== 1 || rest.some((r) => r.length !== 1)) return words(args);
      return [
        printfOutput(
          format[0]!,
          rest.map((r) => r[0]!),
        ),
      ];
    }
    case 'pwd':
      return [scope.dir];
    case 'realpath':
    case 'readlink':
      return args.length > 0 ? expandWord(args[args.length - 1]!, inner) : [scope.dir];
    case 'dirname':
      return args.length > 0 ? expandWord(args[args.length - 1]!, inner).map((p) => (p.includes('/') ? p.replace(/\/+[^/]*\/*$/, '') || '/' : '.')) : [UNKNOWN];
    case 'mktemp':
      return ['/tmp/tmp.intutic'];
    case 'ps':
      return [listsEveryProcess(argv.slice(1)) ? EVERY_PID : UNKNOWN];
    case 'which':
    case 'command':
    case 'type':
      return programLookup(argv[0] === 'which' ? args.find((a) => !a.startsWith('-')) : /^-[vpP]$/.test(args[0] ?? '') ? args[1] : undefined, scope);
    default:
      return [UNKNOWN];
  }
}

/**
 * `$(which python3)`, `$(command -v node)`: where PATH finds a program of that plain name, as the gate
 * found it; without a gate, a system program directory, the worst place a program of that name can be.
 */
function programLookup(name: string | undefined, scope: Scope): string[] {
  if (name === undefined || !/^[\w+-][\w.+-]*$/.test(name)) return [UNKNOWN];
  const found = commandPath(name, scope.ctx);
  return found === undefined ? [`/usr/bin/${name}`] : found === null ? [UNKNOWN] : [found];
}

const EXPANSION = /\$\{([^}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])|\$\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)|`([^`]*)`/g;

/** A word's candidate values: expansions resolved where known, UNKNOWN where not. */
export function expandWord(word: string, scope: Scope, braces = true): string[] {
  const parts: string[][] = [];
  let last = 0;
  for (const m of word.matchAll(EXPANSION)) {
    parts.push([word.slice(last, m.index)]);
    if (m[1] !== undefined) parts.push(braced(m[1], scope));
    else if (m[2] !== undefined) parts.push(/^[#?$!-]$/.test(m[2]) ? ['0'] : variable(m[2], scope));
    else parts.push(substitutionOutput(m[3] ?? m[4] ?? '', scope));
    last = m.index + m[0].length;
  }
  parts.push([word.slice(last)]);
  return cap(
    product(parts)
      .flatMap((w) => (braces ? expandBraces(w) : [w]))
      .map(restoreLiterals),
  );
}

/** Default whitespace plus the characters of an $IFS the line set to a known value. */
function fieldSeparators(scope: Scope): RegExp {
  const ifs = (scope.vars.get('IFS') ?? []).filter((v) => !v.includes(UNKNOWN)).join('');
  return new RegExp(`[ \\t\\n${ifs.replace(/[\\\]^-]/g, '\\$&')}]+`);
}

/** The argv variants a command line's words expand to (each a full argv), split where unquoted expansions split. */
export function expandArgv(argv: readonly string[], scope: Scope, split: readonly boolean[] = [], braces: readonly boolean[] = []): string[][] {
  let variants: string[][] = [[]];
  for (const [i, word] of argv.entries()) {
    // Braces in quotes are text (`node -e '…{a, b}…'`); the parser marks the words with bare ones.
    const values = expandWord(word, scope, braces.length === 0 || braces[i] === true);
    // `"$@"` is one word per parameter even in quotes; an unquoted expansion splits on $IFS too (`IFS=,`).
    const splits = split[i] === true || /^\$(@|\{@\})$/.test(word);
    const candidates = values.map((c) => (splits ? c.split(fieldSeparators(scope)).filter((x) => x !== '') : [c]));
    // An unquoted brace list is several words (`{rm,-rf,~}` is `rm -rf ~`); its items one at a time
    // stay candidates too, for a list whose items are alternatives of one word.
    if (braces[i] && values.length > 1) candidates.unshift(values);
    variants = variants.flatMap((v) => candidates.map((c) => [...v, ...c])).slice(0, MAX_CANDIDATES);
  }
  return variants;
}

/** `for NAME in …` and `set -- a b c` (or `set a b c`, which a later `"$@"` runs): what later words
 *  expand to. True when the command is one of them (nothing runs). */
export function definesWords(argv: readonly string[], scope: Scope): boolean {
  const [first = '', ...rest] = argv;
  if (first === 'for' && rest[1] === 'in') {
    scope.vars.set(
      rest[0]!,
      rest
        .slice(2)
        .flatMap((x) => expandWord(x, scope))
        .slice(0, 16),
    );
    return true;
  }
  if (first === 'set' && (rest[0] === '--' || (rest[0] !== undefined && !/^[-+]/.test(rest[0])))) {
    scope.positional = rest.slice(rest[0] === '--' ? 1 : 0).map((x) => expandWord(x, scope)[0] ?? UNKNOWN);
    return true;
  }
  return false;
}
