// Normalization before matching: strip what changes how a command is spelled but not what it does —
// `VAR=x` prefixes, shell keywords, wrappers (sudo, doas, env, nice, timeout, strace, chroot, flock,
// unshare, xargs, docker/kubectl exec, npx …, each with its own options), path prefixes on the program
// (`/bin/rm`, `\rm`) — and surface what a command runs itself: shell scripts (`bash -c`, `su -c`,
// `eval`, `watch`, `script -c`, `env -S`), interpreter code (`python -c`, `node -e`, `awk '…'`) and
// commands it runs without a shell (`find -exec`, `parallel`). Reading what a program runs from its own
// arguments, once the wrappers are gone, is invocations.ts's part.
import { hostCommand } from './container-mounts.ts';
import { SWITCH_USERS, switchUser } from './tier/switch-user.ts';
import {
  atReadsStdin,
  AWKS,
  awkProgram,
  codeInvocation,
  ESCAPING,
  escapeCommands,
  findExecs,
  interpreterOf,
  shellInvocation,
  tmuxCommands,
  type Inner,
} from './invocations.ts';

export { interpreterOf, type Inner };

export interface EffectiveCommand {
  /** What actually runs, wrappers removed; argv[0] is the program's base name. */
  argv: string[];
  inner: Inner[];
  /** What the program does with its standard input, when that matters to the tier. */
  stdin: 'shell' | 'code' | 'xargs' | null;
  /** xargs's replacement string (`-I {}`), when given. */
  replace?: string;
  /** xargs reads whole lines (`-0`, `-d`), not blank-separated words. */
  whole?: boolean;
}

export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'mksh', 'fish', 'yash', 'posh', 'csh', 'tcsh', 'rbash']);
const KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', '!', '{', '}', 'case', 'esac', 'in', 'coproc']);
export const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;

interface Wrapper {
  /** Short option letters that take an argument. */
  short?: string;
  /** Long options that take a separate argument. */
  long?: string[];
  /** Operands to skip after the options (timeout's duration, chroot's new root …). */
  positional?: number;
  /** Options whose argument is a shell command line. */
  shellOpt?: string[];
}

const WRAPPERS: Record<string, Wrapper> = {
  sudo: {
    short: 'ughpCDrtUTR',
    long: ['--user', '--group', '--host', '--prompt', '--chdir', '--role', '--type', '--other-user', '--close-from', '--command-timeout', '--chroot'],
  },
  doas: { short: 'uC' },
  nohup: {},
  time: { short: 'of', long: ['--output', '--format'] },
  nice: { short: 'n', long: ['--adjustment'] },
  renice: { short: 'npgu' },
  ionice: { short: 'cnpPut', long: ['--class', '--classdata'] },
  stdbuf: { short: 'ioe' },
  setsid: {},
  chrt: { short: 'TPD', positional: 1 },
  taskset: { positional: 1 },
  timeout: { short: 'sk', long: ['--signal', '--kill-after'], positional: 1 },
  exec: { short: 'a' },
  builtin: {},
  command: {},
  noglob: {},
  unbuffer: {},
  caffeinate: { short: 'tw' },
  chronic: {},
  strace: { short: 'oepsuEaIOPSXb', long: ['--output', '--expr', '--attach', '--user', '--env'] },
  ltrace: { short: 'oepsunaAlL' },
  chroot: { long: ['--userspec', '--groups'], positional: 1 },
  flock: { short: 'wEc', long: ['--timeout', '--conflict-exit-code', '--command'], positional: 1, shellOpt: ['-c', '--command'] },
  unshare: { short: 'SGRwl', long: ['--setuid', '--setgid', '--root', '--wd', '--map-user', '--map-group'] },
  nsenter: { short: 'tSGrwe', long: ['--target', '--setuid', '--setgid', '--root', '--wd'] },
  setpriv: {
    long: ['--reuid', '--regid', '--groups', '--inh-caps', '--ambient-caps', '--bounding-set', '--securebits', '--selinux-label', '--apparmor-profile'],
  },
  'systemd-run': { short: 'pEuM', long: ['--unit', '--property', '--setenv', '--machine', '--description', '--slice'] },
  firejail: {},
  proot: { short: 'rbwq' },
  runuser: { short: 'ugc', long: ['--user', '--group', '--command'], shellOpt: ['-c', '--command'] },
  watch: { short: 'n', long: ['--interval'] },
  script: { short: 'cEIOTBt', long: ['--command', '--echo', '--log-in', '--log-out', '--log-timing'], shellOpt: ['-c', '--command'] },
  busybox: {},
  screen: { short: 'ScepTth' },
  toybox: {},
  xargs: { short: 'InPLldEesa', long: ['--arg-file', '--delimiter', '--max-args', '--max-procs', '--max-lines', '--replace', '--eof'] },
  parallel: { short: 'jSX', long: ['--jobs', '--sshlogin', '--joblog', '--halt', '--delay', '--timeout'] },
  ssh: { short: 'pilFJLRDbcEemOQSWwBo', positional: 1 },
  npx: { short: 'pc', long: ['--package', '--call'], shellOpt: ['-c', '--call'] },
  bunx: { short: 'p', long: ['--package'] },
};

/** A table's own entry for a program: `constructor` or `toString` is a program name, not a key of Object. */
const own = <T>(table: Record<string, T>, key: string): T | undefined => (Object.hasOwn(table, key) ? table[key] : undefined);

export function programName(word: string): string {
  const bare = word.replace(/^\\+/, '');
  const slash = bare.lastIndexOf('/');
  return (slash === -1 ? bare : bare.slice(slash + 1)).replace(/\.exe$/i, '');
}

/** Skip a wrapper's options, getopt-style (`-iu root`, `-uroot`, `--user=root`); collect shell-command options. */
function skipOptions(args: string[], w: Wrapper, scripts: Inner[]): string[] {
  const short = w.short ?? '';
  let i = 0;
  while (i < args.length) {
    const a = args[i]!;
    if (a === '--') {
      i++;
      break;
    }
    if (!a.startsWith('-') || a === '-') break;
    if (/^-\d+$/.test(a)) {
      i++; // nice -19
      continue;
    }
    const name = a.startsWith('--') ? a.split('=')[0]! : a;
    if (a.startsWith('--')) {
      const takes = (w.long ?? []).includes(name) && !a.includes('=');
      if (w.shellOpt?.includes(name)) scripts.push({ kind: 'shell', text: a.includes('=') ? a.slice(a.indexOf('=') + 1) : (args[i + 1] ?? '') });
      i += takes ? 2 : 1;
      continue;
    }
    // A bundle of short options: the first one that takes an argument ends it.
    let consumed = 1;
    for (let k = 1; k < a.length; k++) {
      if (!short.includes(a[k]!)) continue;
      const attached = a.slice(k + 1);
      const value = attached !== '' ? attached : (args[i + 1] ?? '');
      if (attached === '') consumed = 2;
      if (w.shellOpt?.includes(`-${a[k]}`)) scripts.push({ kind: 'shell', text: value });
      break;
    }
    i += consumed;
  }
  return args.slice(Math.min(args.length, i + (w.positional ?? 0)));
}

function unwrapEnv(args: string[], scripts: Inner[]): string[] {
  let i = 0;
  while (i < args.length) {
    const a = args[i]!;
    if (a === '--') return args.slice(i + 1);
    if (a === '-S' || a === '--split-string' || a.startsWith('--split-string=') || (a.startsWith('-S') && a.length > 2)) {
      // `env -S "rm -rf /"` splits its argument into words itself: a command line.
      const first = a === '-S' || a === '--split-string' ? (args[++i] ?? '') : a.startsWith('-S') ? a.slice(2) : a.slice(a.indexOf('=') + 1);
      scripts.push({ kind: 'shell', text: [first, ...args.slice(i + 1)].join(' ') });
      return [];
    }
    if (a === '-u' || a === '--unset' || a === '-C' || a === '--chdir') i += 2;
    else if (a.startsWith('-') || ASSIGNMENT.test(a)) i++;
    else break;
  }
  return args.slice(i);
}

/** `docker exec [opts] CONTAINER cmd…`, `kubectl exec POD -- cmd…`, `docker compose exec SERVICE cmd…`. */
function containerCommand(program: string, args: string[]): string[] | null {
  if (program === 'kubectl' || program === 'oc') {
    if (args[0] !== 'exec') return null;
    const dash = args.indexOf('--');
    if (dash !== -1) return args.slice(dash + 1);
    return skipOptions(args.slice(1), { short: 'ncf', long: ['--namespace', '--container', '--filename'], positional: 1 }, []);
  }
  let rest = args;
  if (rest[0] === 'compose') rest = skipOptions(rest.slice(1), { short: 'fp', long: ['--file', '--project-name', '--profile', '--env-file'] }, []);
  const sub = rest[0];
  if (sub !== 'exec' && sub !== 'run') return null;
  const withArg = 'euwvpl';
  const longWithArg = [
    '--env',
    '--user',
    '--workdir',
    '--env-file',
    '--detach-keys',
    '--name',
    '--network',
    '--entrypoint',
    '--volume',
    '--mount',
    '--publish',
    '--label',
    '--platform',
    '--hostname',
    '--memory',
    '--cpus',
    '--add-host',
    '--cap-add',
    '--cap-drop',
    '--device',
    '--shm-size',
    '--ulimit',
    '--tmpfs',
    '--pull',
    '--restart',
    '--service-ports',
  ];
  const command = skipOptions(rest.slice(1), { short: withArg + 'hm', long: longWithArg, positional: 1 }, []);
  return sub === 'run' ? hostCommand(command, rest.slice(1, rest.length - command.length)) : command;
}

const PACKAGE_RUNNERS: Record<string, string[]> = { npm: ['exec', 'x'], pnpm: ['dlx', 'exec'], yarn: ['dlx', 'exec'], bun: ['x'] };

/** Normalize one simple command's (expanded) argv. */
export function effectiveCommand(argv: readonly string[]): EffectiveCommand {
  const inner: Inner[] = [];
  let args = [...argv];
  for (let guard = 0; guard < 32 && args.length > 0; guard++) {
    while (args.length > 0 && (ASSIGNMENT.test(args[0]!) || KEYWORDS.has(args[0]!))) args.shift();
    // `function f { …; }`: the body's first command follows the name and the brace.
    if (args[0] === 'function') {
      args = args.slice(2);
      while (args.length > 0 && KEYWORDS.has(args[0]!)) args.shift();
    }
    if (args.length === 0) break;
    const program = programName(args[0]!);
    const rest = args.slice(1);
    const runner = own(PACKAGE_RUNNERS, program);
    const inContainer = ['docker', 'podman', 'nerdctl', 'kubectl', 'oc', 'docker-compose', 'podman-compose'].includes(program)
      ? containerCommand(program, program.endsWith('-compose') ? ['compose', ...rest] : rest)
      : null;
    if (program === 'env') args = unwrapEnv(rest, inner);
    else if (program === 'command' && (rest[0] === '-v' || rest[0] === '-V')) return { argv: [program, ...rest], inner, stdin: null };
    else if (inContainer) args = inContainer;
    else if (runner && runner.includes(rest[0] ?? '')) args = skipOptions(rest.slice(1), { short: 'p', long: ['--package'] }, inner);
    else if ((program === 'yarn' || program === 'pnpm') && rest.length > 0 && !rest[0]!.startsWith('-')) args = rest;
    else if (program === 'watch' || program === 'parallel' || program === 'ssh') {
      const cmd = skipOptions(rest, own(WRAPPERS, program)!, inner);
      const sep = cmd.indexOf(':::');
      const words = sep === -1 ? cmd : cmd.slice(0, sep);
      const operands = sep === -1 ? [''] : cmd.slice(sep + 1);
      for (const o of operands)
        inner.push({ kind: 'shell', text: words.some((w) => w.includes('{}')) ? words.map((w) => w.replace(/\{\}/g, o)).join(' ') : [...words, o].join(' ') });
      return { argv: [program, ...rest], inner, stdin: null };
    } else if (program === 'busybox' || program === 'toybox') args = rest;
    else if (SWITCH_USERS.test(program)) {
      const switched = switchUser(program, rest);
      for (const text of switched.shells) inner.push({ kind: 'shell', text });
      if (switched.argv === null) return { argv: [program, ...rest], inner, stdin: switched.stdin ? 'shell' : null };
      args = switched.argv;
    } else if (own(WRAPPERS, program)) {
      const w = own(WRAPPERS, program)!;
      const skipped = skipOptions(rest, w, inner);
      if (program === 'xargs')
        return { argv: skipped.length > 0 ? [programName(skipped[0]!), ...skipped.slice(1)] : ['echo'], inner, stdin: 'xargs', ...xargsReplace(rest) };
      if (program === 'chroot' && skipped.length === 0) return { argv: [program, ...rest], inner, stdin: 'shell' };
      // `sudo -i`, `sudo -s`, `doas -s` with no command: a shell that reads its standard input.
      if (
        (program === 'sudo' || program === 'doas') &&
        skipped.length === 0 &&
        rest.some((a) => /^-[a-zA-Z]*[is]/.test(a) || a === '--login' || a === '--shell')
      )
        return { argv: [program, ...rest], inner, stdin: 'shell' };
      args = skipped;
    } else {
      args = [program.replace(/@[^/]*$/, ''), ...rest];
      break;
    }
  }
  const program = args[0] ?? '';
  let stdin: EffectiveCommand['stdin'] = null;
  const codeOpts = interpreterOf(program);
  if (SHELLS.has(program)) stdin = shellInvocation(args.slice(1), inner);
  else if (program === 'su' || program === 'runuser') skipOptions(args.slice(1), WRAPPERS.runuser!, inner);
  else if (program === 'eval') inner.push({ kind: 'shell', text: args.slice(1).join(' ') });
  else if ((program === 'source' || program === '.') && ['/dev/stdin', '/dev/fd/0', '/proc/self/fd/0', '-'].includes(args[1] ?? '')) stdin = 'shell';
  else if (program === 'deno' && args[1] === 'eval') inner.push({ kind: 'code', program, text: args[2] ?? '' });
  else if (codeOpts && (program === 'deno' || program === 'bun') && args[1] === 'run') stdin = codeInvocation(program, codeOpts, args.slice(2), inner);
  else if (codeOpts) stdin = codeInvocation(program, codeOpts, args.slice(1), inner);
  else if (AWKS.has(program)) stdin = awkProgram(args.slice(1), inner);
  else if (program === 'find') inner.push(...findExecs(args.slice(1)));
  else if (ESCAPING.test(program)) inner.push(...escapeCommands(program, args.slice(1)));
  else if (program === 'tmux') inner.push(...tmuxCommands(args.slice(1)));
  else if (program === 'at' || program === 'batch') stdin = atReadsStdin(args.slice(1));
  return { argv: args, inner, stdin };
}

function xargsReplace(args: string[]): { replace?: string; whole?: boolean } {
  // `-0` / `--null` / `-d '\n'`: items are not split at blanks, so a line is one argument.
  const whole = args.some((a) => a === '-0' || a === '--null' || /^-[a-zA-Z]*0$/.test(a) || /^(-d|--delimiter)=?/.test(a)) ? { whole: true } : {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-I' || a === '--replace') return { replace: args[i + 1] ?? '{}', ...whole };
    if (a.startsWith('-I') || a.startsWith('-i')) return { replace: a.slice(2) || '{}', ...whole };
    if (a.startsWith('--replace=')) return { replace: a.slice(10), ...whole };
    if (!a.startsWith('-')) break;
  }
  return whole;
}
