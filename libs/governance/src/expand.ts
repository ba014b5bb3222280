// Word expansion as far as a command line can be read statically: variables the line assigned
// (`X=/; rm -rf $X`), `${…}` forms, `$IFS`, braces, positional parameters, and command substitutions
// whose output is plain (`$(echo rm)`, `$(pwd)`, `$(mktemp -d)`). Everything else becomes UNKNOWN,
// which the path checks read as the worst place it could be. Each word yields a few candidates.
import { UNKNOWN, type PathContext } from './paths.ts';
import { parseShell, restoreLiterals } from './shell.ts';

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
  /** Files written earlier in the line whose content is known: a download, or a script's text. */
  files: Map<string, { remote: true } | { text: string }>;
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
  if (name === 'HOME') return ['~'];
  if (name === 'PWD') return [scope.dir];
  if (name === 'IFS') return [' '];
  if (name === '0') return ['sh'];
  if (/^\d+$/.test(name)) return [scope.positional?.[Number(name) - 1] ?? UNKNOWN];
  if (name === '@' || name === '*') return [scope.positional ? scope.positional.join(' ') : UNKNOWN];
  return scope.vars.get(name) ?? [UNKNOWN];
}

/** The candidates of a `${…}` body. */
function braced(body: string, scope: Scope): string[] {
  const m = /^([A-Za-z_][A-Za-z0-9_]*|\d+|[@*])(?:(:?[-=?+])(.*))?$/s.exec(body);
  if (!m) return [UNKNOWN]; // ${#X}, ${X#pat}, ${!X}, ${X/a/b}: not followed
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
    case 'printf':
      return words(args);
    case 'pwd':
      return [scope.dir];
    case 'realpath':
    case 'readlink':
      return args.length > 0 ? expandWord(args[args.length - 1]!, inner) : [scope.dir];
    case 'dirname':
      return args.length > 0 ? expandWord(args[args.length - 1]!, inner).map((p) => (p.includes('/') ? p.replace(/\/+[^/]*\/*$/, '') || '/' : '.')) : [UNKNOWN];
    case 'mktemp':
      return ['/tmp/tmp.intutic'];
    default:
      return [UNKNOWN];
  }
}

const EXPANSION = /\$\{([^}]*)\}|\$([A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-])|\$\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)|`([^`]*)`/g;

/** A word's candidate values: expansions resolved where known, UNKNOWN where not. */
export function expandWord(word: string, scope: Scope): string[] {
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
      .flatMap((w) => expandBraces(w))
      .map(restoreLiterals),
  );
}

/** The argv variants a command line's words expand to (each a full argv), split where unquoted expansions split. */
export function expandArgv(argv: readonly string[], scope: Scope, split: readonly boolean[] = []): string[][] {
  let variants: string[][] = [[]];
  for (const [i, word] of argv.entries()) {
    const candidates = expandWord(word, scope).map((c) => (split[i] ? c.split(/[ \t\n]+/).filter((x) => x !== '') : [c]));
    variants = variants.flatMap((v) => candidates.map((c) => [...v, ...c])).slice(0, MAX_CANDIDATES);
  }
  return variants;
}
