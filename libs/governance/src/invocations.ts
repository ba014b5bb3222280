// What a program runs itself, read from its arguments once the wrappers around it are gone: a shell's
// script (`sh -c`), an interpreter's code (`python -c`, `node -e`, `awk '…'`), find's `-exec` commands;
// and whether the program reads a script or code from its standard input instead.

export interface Inner {
  kind: 'shell' | 'code' | 'exec';
  /** The script or code text (`shell`, `code`). */
  text?: string;
  /** The interpreter (`code`). */
  program?: string;
  /** `$1`… of a `sh -c` script; the argv of an `exec`. */
  args?: string[];
  /** `$0` of a `sh -c` script, when the line gives one. */
  arg0?: string;
}

/** Interpreters and the options that carry their code. */
const CODE_OPTS: [RegExp, string[]][] = [
  [/^(python[\d.]*|pypy[\d.]*)$/, ['-c']],
  [/^perl[\d.]*$/, ['-e', '-E']],
  [/^(ruby|jruby)$/, ['-e']],
  [/^(node|nodejs|bun|deno|ts-node|tsx)$/, ['-e', '--eval', '-p', '--print']],
  [/^php[\d.]*$/, ['-r']],
  [/^(lua|luajit|Rscript|julia|tclsh|osascript|jshell|groovy)$/, ['-e']],
];
/** awk's names: its program is its first operand. */
export const AWKS = new Set(['awk', 'gawk', 'mawk', 'nawk', 'busybox-awk']);

export const interpreterOf = (program: string): string[] | null => CODE_OPTS.find(([re]) => re.test(program))?.[1] ?? null;

/** `sh -c SCRIPT [$0 $1 …]`, `sh -s`, `sh FILE`, or `sh` alone (reads its standard input). */
export function shellInvocation(args: string[], inner: Inner[]): 'shell' | null {
  let sawC = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (['-o', '+o', '-O', '+O', '--rcfile', '--init-file'].includes(a)) {
      i++;
    } else if (a === '-' || a === '-s' || (/^-[A-Za-z]+$/.test(a) && a.includes('s') && !a.includes('c'))) {
      return 'shell';
    } else if (/^-[A-Za-z]+$/.test(a)) {
      sawC ||= a.includes('c');
    } else if (a !== '--' && !a.startsWith('--') && !a.startsWith('+')) {
      if (sawC) inner.push({ kind: 'shell', text: a, args: args.slice(i + 2), ...(i + 1 < args.length ? { arg0: args[i + 1]! } : {}) });
      else if (a === '/dev/stdin' || a === '/dev/fd/0' || a === '/proc/self/fd/0') return 'shell';
      return null; // a script file: what it holds is not on the command line
    }
  }
  return sawC ? null : 'shell';
}

/** The code an interpreter is given on its command line (`-c`, `-e` …); with none, it reads code from its standard input, unless it runs a module or a file. */
export function codeInvocation(program: string, opts: string[], args: string[], inner: Inner[]): 'code' | null {
  const code: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const bundled = /^-[a-zA-Z]+$/.test(a) && opts.some((o) => o.length === 2 && a.endsWith(o[1]!)) ? a : null;
    if (opts.includes(a) || bundled) code.push(args[++i] ?? '');
    else if (opts.some((o) => o.startsWith('--') && a.startsWith(`${o}=`))) code.push(a.slice(a.indexOf('=') + 1));
    else if (a === '-m' || a === '-' || (!a.startsWith('-') && code.length === 0)) {
      if (a === '-') return 'code';
      if (code.length === 0) return null; // a module or a script file
      break;
    } else if (['-W', '-X', '-I', '-r', '--require', '--import', '--loader'].includes(a)) i++;
  }
  if (code.length > 0) inner.push({ kind: 'code', program, text: code.join('\n') });
  return code.length > 0 ? null : 'code';
}

/** The commands `find` runs itself (`-exec`, `-execdir`, `-ok`, `-okdir`). */
export function findExecs(args: string[]): Inner[] {
  const execs: Inner[] = [];
  for (let i = 0; i < args.length; i++) {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(args[i]!)) continue;
    let end = i + 1;
    while (end < args.length && args[end] !== ';' && args[end] !== '+') end++;
    execs.push({ kind: 'exec', args: args.slice(i + 1, end) });
    i = end;
  }
  return execs;
}

/** awk's program text, unless it is read from a file (`-f`). */
export function awkProgram(args: string[], inner: Inner[]): 'code' | null {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-f' || a === '--file') return ['-', '/dev/stdin', '/dev/fd/0', '/proc/self/fd/0'].includes(args[i + 1] ?? '') ? 'code' : null;
    if (a === '-F' || a === '-v' || a === '--assign' || a === '--field-separator') i++;
    else if (!a.startsWith('-') || a === '--') {
      inner.push({ kind: 'code', program: 'awk', text: a === '--' ? (args[i + 1] ?? '') : a });
      return null;
    }
  }
  return null;
}

/** Editors and debuggers that run shell escapes from their command-line commands. */
export const ESCAPING = /^(vim?|nvim|ex|view|rvim|gvim|gdb|lldb)$/;

/** Shell escapes in an editor's or debugger's startup commands: `vim -c ':!rm -rf ~'`, `vim +'%!…'`,
 *  `gdb -ex 'shell …'`, `lldb -o 'platform shell …'`. */
export function escapeCommands(program: string, args: string[]): Inner[] {
  const debugger_ = program === 'gdb' || program === 'lldb';
  const takes = debugger_ ? ['-ex', '--ex', '-eval-command', '--eval-command', '-o', '--one-line', '-O', '--one-line-before-file'] : ['-c', '--cmd'];
  const cmds: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (takes.includes(a)) cmds.push(args[++i] ?? '');
    else if (debugger_ && /^--?(ex|eval-command|one-line)=/.test(a)) cmds.push(a.slice(a.indexOf('=') + 1));
    else if (!debugger_ && a.length > 1 && a.startsWith('+')) cmds.push(a.slice(1));
  }
  return cmds.flatMap((c) => {
    const m = /^[\s:]*[%.$,'\d\s]*!(.*)$/s.exec(c) ?? /^\s*(?:platform\s+)?shell\s+(.*)$/s.exec(c);
    return m ? [{ kind: 'shell' as const, text: m[1]! }] : [];
  });
}

/** tmux subcommands that run a shell command given as their last operands. */
const TMUX_RUNS = new Set([
  'new',
  'new-session',
  'new-window',
  'neww',
  'split-window',
  'splitw',
  'respawn-pane',
  'respawnp',
  'respawn-window',
  'respawnw',
  'run-shell',
  'run',
]);
/** tmux options (of those subcommands and send-keys) that take a value. */
const TMUX_VALUED = new Set(['-s', '-n', '-c', '-t', '-x', '-y', '-F', '-e', '-l', '-f', '-L', '-S', '-N', '-T']);
/** Key names send-keys turns into keys rather than text. */
const TMUX_KEYS = /^(Enter|C-m|C-j|KPEnter|Escape|Tab|Space|BSpace|C-[a-z])$/;

/** What tmux runs: `tmux new -d 'rm -rf ~'`, `split-window`, `run-shell`, and text typed by `send-keys`. */
export function tmuxCommands(args: string[]): Inner[] {
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-')) i += ['-L', '-S', '-f', '-T'].includes(args[i]!) ? 2 : 1;
  const sub = args[i] ?? '';
  const words: string[] = [];
  for (let k = i + 1; k < args.length; k++) {
    const a = args[k]!;
    if (a.startsWith('-') && a.length > 1 && words.length === 0) k += TMUX_VALUED.has(a) ? 1 : 0;
    else words.push(a);
  }
  if (TMUX_RUNS.has(sub) && words.length > 0) return [{ kind: 'shell', text: words.join(' ') }];
  if (sub === 'send-keys' || sub === 'send') {
    const text = words.filter((w) => !TMUX_KEYS.test(w)).join(' ');
    return text ? [{ kind: 'shell', text }] : [];
  }
  return [];
}

/** `at TIME` and `batch` read the job's script from standard input, unless given a file (-f) or asked to list or remove jobs. */
export function atReadsStdin(args: string[]): 'shell' | null {
  return args.some((a) => /^-[a-zA-Z]*[flrdc]/.test(a)) ? null : 'shell';
}
