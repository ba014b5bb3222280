// Normalization before matching: strip what changes how a command is spelled but not what it does —
// `VAR=x` prefixes, shell keywords, wrappers (sudo, doas, env, nohup, nice, timeout, xargs…), path
// prefixes on the program (`/bin/rm`, `\rm`) — and surface the scripts a command runs itself
// (`bash -c '…'`, `sh -lc`, `su -c`, `eval …`, `env -S …`, `find … -exec …`).
import { parseShell, type ShellScript } from './shell.ts';

export interface EffectiveCommand {
  /** What actually runs, wrappers removed; argv[0] is the program's base name. */
  argv: string[];
  /** Scripts this command runs from its arguments (`bash -c`, `eval`, `su -c`, `env -S`). */
  scripts: ShellScript[];
  /** Commands it runs from its arguments without a shell (`find -exec`). */
  execs: string[][];
}

export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'mksh', 'fish', 'yash', 'posh']);
const KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', '!', '{', '}', 'case', 'esac', 'in']);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;

/** Options that take a separate argument, per wrapper; every other `-x` is a flag. */
const WRAPPERS: Record<string, { withArg: Set<string>; positional?: number }> = {
  sudo: { withArg: new Set(['-u', '-g', '-h', '-p', '-C', '-D', '-r', '-t', '-U', '-T', '-R', '--user', '--group', '--host', '--prompt', '--chdir', '--role', '--type', '--other-user', '--close-from', '--command-timeout', '--chroot']) },
  doas: { withArg: new Set(['-u', '-C']) },
  nohup: { withArg: new Set() },
  time: { withArg: new Set(['-o', '-f', '--output', '--format']) },
  nice: { withArg: new Set(['-n', '--adjustment']) },
  ionice: { withArg: new Set(['-c', '-n', '-p', '-P', '-u', '--class', '--classdata']) },
  stdbuf: { withArg: new Set(['-i', '-o', '-e']) },
  setsid: { withArg: new Set() },
  chrt: { withArg: new Set(['-T', '-P', '-D']), positional: 1 },
  taskset: { withArg: new Set(), positional: 1 },
  timeout: { withArg: new Set(['-s', '-k', '--signal', '--kill-after']), positional: 1 },
  xargs: { withArg: new Set(['-I', '-i', '-n', '-P', '-L', '-l', '-d', '-E', '-e', '-s', '-a', '--arg-file', '--delimiter', '--max-args', '--max-procs', '--max-lines', '--replace']) },
  exec: { withArg: new Set(['-a']) },
  builtin: { withArg: new Set() },
  busybox: { withArg: new Set() },
  unbuffer: { withArg: new Set() },
  caffeinate: { withArg: new Set(['-t', '-w']) },
};

export function programName(word: string): string {
  const bare = word.replace(/^\\+/, '');
  const slash = bare.lastIndexOf('/');
  return slash === -1 ? bare : bare.slice(slash + 1);
}

/** Skip a wrapper's options (and `positional` leading operands such as timeout's duration). */
function skipOptions(args: string[], withArg: Set<string>, positional = 0): string[] {
  let i = 0;
  while (i < args.length) {
    const a = args[i]!;
    if (a === '--') {
      i++;
      break;
    }
    if (!a.startsWith('-') || a === '-') break;
    const name = a.includes('=') ? a.slice(0, a.indexOf('=')) : a;
    i += withArg.has(name) && !a.includes('=') ? 2 : 1;
  }
  return args.slice(i + positional);
}

function unwrapEnv(args: string[], scripts: ShellScript[]): string[] {
  let i = 0;
  while (i < args.length) {
    const a = args[i]!;
    if (a === '--') return args.slice(i + 1);
    if (a === '-S' || a === '--split-string') {
      // `env -S "rm -rf /"` splits its argument into words itself: parse it as a command line.
      scripts.push(parseShell([args[i + 1] ?? '', ...args.slice(i + 2)].join(' ')));
      return [];
    }
    if (a.startsWith('--split-string=') || (a.startsWith('-S') && a.length > 2)) {
      scripts.push(parseShell([a.startsWith('-S') ? a.slice(2) : a.slice(a.indexOf('=') + 1), ...args.slice(i + 1)].join(' ')));
      return [];
    }
    if (a === '-u' || a === '--unset' || a === '-C' || a === '--chdir') i += 2;
    else if (a.startsWith('-') || ASSIGNMENT.test(a)) i++;
    else break;
  }
  return args.slice(i);
}

/** A shell invoked with `-c` (alone or combined, `-lc`, `-ec`): the script it runs. */
function shellScriptArg(args: string[]): string | null {
  let sawC = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-o' || a === '+o' || a === '-O' || a === '+O' || a === '--rcfile' || a === '--init-file') {
      i++;
      continue;
    }
    if (a === '--') continue;
    if (/^-[A-Za-z]+$/.test(a)) {
      if (a.includes('c')) sawC = true;
      continue;
    }
    if (a.startsWith('--') || a.startsWith('+')) continue;
    return sawC ? a : null;
  }
  return null;
}

function suScriptArg(args: string[]): string | null {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-c' || a === '--command') return args[i + 1] ?? null;
    if (a.startsWith('--command=')) return a.slice('--command='.length);
  }
  return null;
}

function findExecs(args: string[]): string[][] {
  const execs: string[][] = [];
  for (let i = 0; i < args.length; i++) {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(args[i]!)) continue;
    const start = i + 1;
    let end = start;
    while (end < args.length && args[end] !== ';' && args[end] !== '+') end++;
    execs.push(args.slice(start, end));
    i = end;
  }
  return execs;
}

/** Normalize one simple command's argv. */
export function effectiveCommand(argv: readonly string[]): EffectiveCommand {
  const scripts: ShellScript[] = [];
  let args = [...argv];
  for (let guard = 0; guard < 32 && args.length > 0; guard++) {
    while (args.length > 0 && (ASSIGNMENT.test(args[0]!) || KEYWORDS.has(args[0]!))) args.shift();
    if (args.length === 0) break;
    const program = programName(args[0]!);
    const rest = args.slice(1);
    if (program === 'env') {
      args = unwrapEnv(rest, scripts);
    } else if (program === 'command') {
      if (rest[0] === '-v' || rest[0] === '-V') return { argv: [program, ...rest], scripts, execs: [] };
      args = skipOptions(rest, new Set());
    } else if (WRAPPERS[program]) {
      const w = WRAPPERS[program]!;
      args = skipOptions(rest, w.withArg, w.positional ?? 0);
    } else {
      args = [program, ...rest];
      break;
    }
  }
  const program = args[0] ?? '';
  if (SHELLS.has(program)) {
    const script = shellScriptArg(args.slice(1));
    if (script !== null) scripts.push(parseShell(script));
  } else if (program === 'su' || program === 'runuser') {
    const script = suScriptArg(args.slice(1));
    if (script !== null) scripts.push(parseShell(script));
  } else if (program === 'eval' || program === 'source' || program === '.') {
    if (program === 'eval') scripts.push(parseShell(args.slice(1).join(' ')));
  }
  return { argv: args, scripts, execs: program === 'find' ? findExecs(args.slice(1)) : [] };
}

/** A command line as one normalized string per simple command (wrappers removed, words single-spaced). */
export function normalizedSegments(script: ShellScript): string[] {
  const out: string[] = [];
  const visit = (s: ShellScript, depth: number): void => {
    if (depth > 8) return;
    for (const p of s.pipelines) {
      for (const c of p.commands) {
        if (c.group) visit(c.group, depth + 1);
        for (const sub of c.substitutions) visit(sub, depth + 1);
        const eff = effectiveCommand(c.argv);
        if (eff.argv.length > 0) out.push(eff.argv.join(' '));
        for (const nested of eff.scripts) visit(nested, depth + 1);
        for (const exec of eff.execs) if (exec.length > 0) out.push(exec.map((w, i) => (i === 0 ? programName(w) : w)).join(' '));
      }
    }
  };
  visit(script, 0);
  return out;
}
