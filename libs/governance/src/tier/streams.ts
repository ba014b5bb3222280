// What reaches a command's standard input, as far as the line shows it: the text of an `echo`,
// `printf`, heredoc or here-string (decoded through `base64 -d`, `xxd -r`, `rev` when it can be), the
// paths `find` prints, the names `ls` prints, every pid `ps -e` prints, a local file (by the names the line gives it: `< f`, `cat f`, `head f`), a
// download, or something the gate cannot read. A shell or an interpreter that runs its standard input
// runs exactly this.
import { expandArgv, expandWord, type Scope } from '../expand.ts';
import { effectiveCommand } from '../normalize.ts';
import { UNKNOWN } from '../paths.ts';
import { parseShell, type SimpleCommand } from '../shell.ts';
import { EVERY_PID, listsEveryProcess } from './processes.ts';

export type Stream = { kind: 'text'; texts: string[] } | { kind: 'local'; files: string[] } | { kind: 'remote' } | { kind: 'unknown' } | { kind: 'none' };

/** Stands for the ids `docker ps -aq` prints: every container. */
export const ALL_CONTAINERS = '\u0005every-container';
export const DOWNLOADERS = new Set([
  'curl',
  'wget',
  'fetch',
  'aria2c',
  'http',
  'https',
  'xh',
  'lwp-request',
  'GET',
  'nc',
  'ncat',
  'netcat',
  'socat',
  'telnet',
  'wget2',
  'curlie',
]);

const text = (texts: string[]): Stream => ({ kind: 'text', texts });
const map = (s: Stream, f: (t: string) => string | null): Stream => {
  // Decoding a file's bytes (`base64 -d < f`) gives text the line does not show.
  if (s.kind !== 'text') return s.kind === 'none' || s.kind === 'local' ? { kind: 'unknown' } : s;
  const out = s.texts.map(f);
  return out.some((t) => t === null) ? { kind: 'unknown' } : text(out as string[]);
};

function unescape(s: string): string {
  return s.replace(/\\(n|t|\\|0?[0-7]{1,3}|x[0-9a-fA-F]{1,2})/g, (_, e: string) => {
    if (e === 'n') return '\n';
    if (e === 't') return '\t';
    if (e === '\\') return '\\';
    if (e[0] === 'x') return String.fromCharCode(parseInt(e.slice(1), 16));
    return String.fromCharCode(parseInt(e, 8));
  });
}

function base64Decode(s: string): string | null {
  const compact = s.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(compact) || compact.includes(UNKNOWN)) return null;
  return Buffer.from(compact, 'base64').toString('utf8');
}

function hexDecode(s: string): string | null {
  const compact = s.replace(/\s+/g, '');
  return /^([0-9a-fA-F]{2})*$/.test(compact) ? Buffer.from(compact, 'hex').toString('utf8') : null;
}

/** The files cat, head, tail or tac print: their operands, without the values of `-n 5`, `-c 1K`. */
function fileOperands(program: string, args: readonly string[]): string[] {
  const valued = (w: string | undefined): boolean =>
    (program === 'head' || program === 'tail') && /^(-[nc]|--lines|--bytes|--pid|--sleep-interval|-s)$/.test(w ?? '');
  return args.filter((a, i) => !/^-./.test(a) && !valued(args[i - 1]));
}

/** What a command reads on its standard input: its own redirections first, then the pipeline. */
export function stdinOf(stages: SimpleCommand[], k: number, scope: Scope): Stream {
  const cmd = stages[k]!;
  const input = [...cmd.redirects].reverse().find((r) => ['<<', '<<-', '<<<', '<'].includes(r.op));
  if (input?.op === '<<<') return text(expandWord(input.target, scope));
  if (input && input.op !== '<') return text([input.target]);
  if (input?.target.startsWith('<(')) return scriptOutput(input.target.slice(2, -1), scope);
  if (input) return /^\/dev\/(tcp|udp)\//.test(input.target) ? { kind: 'remote' } : { kind: 'local', files: expandWord(input.target, scope) };
  return k > 0 ? outputOf(stages, k - 1, scope) : (scope.stdin ?? { kind: 'none' });
}

/** What a script (a process substitution's) writes: its last pipeline's output. */
export function scriptOutput(text: string, scope: Scope): Stream {
  const last = parseShell(text).pipelines.at(-1);
  return last ? outputOf(last.commands, last.commands.length - 1, scope) : { kind: 'none' };
}

/** ls's options that print names only, one per line (no `.` or `..`, no link targets, no other directory's path). */
const LS_NAMES_ONLY = /^(-[1AtrSXvcuUGhFpdQ]+|--color(=\w+)?|--)$/;

/**
 * What `ls` prints: its operands as given (files, and what a glob matches), and any name inside a
 * directory it lists, which `*` stands for (never `.` or `..`, and never with a `/`). With `-a`, `-l`,
 * `-R` or another option it may print more, and its output is unknown.
 */
function lsOutput(args: string[]): Stream {
  if (!args.filter((a) => a.startsWith('-')).every((a) => LS_NAMES_ONLY.test(a))) return text([UNKNOWN]);
  const operands = args.filter((a) => !a.startsWith('-'));
  const directoriesOnly = args.some((a) => /^-[^-]*d/.test(a));
  const names = directoriesOnly ? (operands.length === 0 ? ['.'] : []) : ['*'];
  return text([[...operands, ...names].join('\n')]);
}

/** What a pipeline stage writes to its standard output. */
export function outputOf(stages: SimpleCommand[], k: number, scope: Scope, toFile = false): Stream {
  const cmd = stages[k]!;
  if (!toFile && cmd.redirects.some((r) => /^(>|>>|>\||&>)$/.test(r.op) && !/^&?[12]$/.test(r.target))) return { kind: 'none' };
  if (cmd.group) {
    const last = cmd.group.pipelines[cmd.group.pipelines.length - 1];
    return last ? outputOf(last.commands, last.commands.length - 1, scope) : { kind: 'none' };
  }
  const argv = expandArgv(cmd.argv, scope, cmd.split)[0] ?? [];
  const eff = effectiveCommand(argv);
  const [program = '', ...args] = eff.argv;
  if (DOWNLOADERS.has(program)) return { kind: 'remote' };
  switch (program) {
    case 'echo':
      return text([unescape(args.filter((a, i) => !(i === 0 && /^-[neE]+$/.test(a))).join(' ')) + '\n']);
    case 'printf': {
      const [raw = '', ...rest] = args;
      const format = unescape(raw);
      return text([rest.length === 0 ? format : format.includes('%') ? format.replace(/%[sb]/g, () => unescape(rest.shift() ?? '')) : format + rest.join(' ')]);
    }
    case 'cat':
    case 'head':
    case 'tail':
    case 'tac': {
      const files = fileOperands(program, args);
      return files.length > 0 && !files.includes('-') ? { kind: 'local', files } : stdinOf(stages, k, scope);
    }
    case 'tee':
      return stdinOf(stages, k, scope);
    case 'base64':
      return args.some((a) => /^(-d|--decode|-D|-di|-id)$/.test(a)) ? map(stdinOf(stages, k, scope), base64Decode) : { kind: 'unknown' };
    case 'xxd':
      return args.some((a) => /^-r/.test(a) || a === '-revert') ? map(stdinOf(stages, k, scope), hexDecode) : { kind: 'unknown' };
    case 'rev':
      return map(stdinOf(stages, k, scope), (t) =>
        t
          .split('\n')
          .map((l) => [...l].reverse().join(''))
          .join('\n'),
      );
    case 'find': {
      const stop = args.findIndex((a) => /^[-(!]/.test(a) && !/^-[HLP]$/.test(a));
      const roots = (stop === -1 ? args : args.slice(0, stop)).filter((a) => !/^-[HLP]$/.test(a));
      const filtered = args.some((a) => /^-(i?name|i?path|i?regex|mindepth|type|newer|mtime|size|wholename)$/.test(a));
      const list = roots.length > 0 ? roots : ['.'];
      return text([list.flatMap((r) => (filtered ? [`${r}/x`] : [r, `${r}/x`])).join('\n')]);
    }
    case 'docker':
    case 'podman':
      return args[0] === 'ps' && args.some((a) => /^-[a-zA-Z]*a/.test(a)) && !args.some((a) => a.startsWith('--filter') || a === '-f')
        ? text([ALL_CONTAINERS])
        : { kind: 'unknown' };
    case 'ls':
      return lsOutput(args);
    case 'ps':
      return listsEveryProcess(args) ? text([EVERY_PID]) : { kind: 'unknown' };
    case 'git':
    case 'grep':
    case 'fd':
    case 'rg':
      // Names from the workspace: any name at all, `etc` or `..` included.
      return text([UNKNOWN]);
    default:
      return { kind: 'unknown' };
  }
}
