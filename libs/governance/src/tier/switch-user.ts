// Running as another user or group: `su [-] [user] -c CMD`, `su user` reading commands from its
// standard input, `runuser -u user -- CMD…`, `sg group -c CMD`, `newgrp group` (a shell on stdin),
// `pkexec CMD…`, `machinectl shell [user@] CMD…`. Options come before or after the user (GNU su
// permutes them). What runs is returned: a command's argv, shell scripts, or a shell on stdin.

export const SWITCH_USERS = /^(su|runuser|sg|newgrp|pkexec|machinectl)$/;

export interface SwitchedUser {
  /** The command run directly (`runuser -u u -- cmd`, `pkexec cmd`), or null. */
  argv: string[] | null;
  /** Scripts given to the user's shell (`-c`). */
  shells: string[];
  /** The user's shell reads its commands from standard input. */
  stdin: boolean;
}

const SU_WITH_ARG = new Set([
  '-c',
  '--command',
  '-s',
  '--shell',
  '-g',
  '--group',
  '-G',
  '--supp-group',
  '-w',
  '--whitelist-environment',
  '-u',
  '--user',
  '-C',
  '--session-command',
]);

function su(args: string[], program: string): SwitchedUser {
  const shells: string[] = [];
  const operands: string[] = [];
  let commandUser = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      // runuser -u USER -- CMD …: a command; su USER -- ARGS: arguments to the shell.
      if (commandUser) return { argv: args.slice(i + 1), shells, stdin: false };
      operands.push(...args.slice(i + 1));
      break;
    }
    const long = a.startsWith('--') ? a.split('=')[0]! : null;
    if (long !== null && a.includes('=')) {
      if (long === '--command' || long === '--session-command') shells.push(a.slice(a.indexOf('=') + 1));
      if (long === '--user') commandUser = true;
      continue;
    }
    if (SU_WITH_ARG.has(a)) {
      if (a === '-c' || a === '--command' || a === '-C' || a === '--session-command') shells.push(args[i + 1] ?? '');
      if (program === 'runuser' && (a === '-u' || a === '--user')) commandUser = true;
      i++;
      continue;
    }
    if (/^-[a-zA-Z]+$/.test(a) && a !== '-') {
      const at = [...a.slice(1)].findIndex((ch) => 'csgGwuC'.includes(ch));
      if (at !== -1) {
        const ch = a[at + 1]!;
        const value = a.slice(at + 2) || args[++i] || '';
        if (ch === 'c' || ch === 'C') shells.push(value);
        if (ch === 'u' && program === 'runuser') commandUser = true;
      }
      continue;
    }
    if (a === '-' || a.startsWith('-')) continue;
    if (commandUser) return { argv: args.slice(i), shells, stdin: false };
    operands.push(a);
  }
  // `su user -c x` or `su -c x user`: the first operand is the user; any more go to the shell.
  const extra = operands.slice(1);
  if (extra[0] === '-c') shells.push(extra[1] ?? '');
  return { argv: null, shells, stdin: shells.length === 0 };
}

export function switchUser(program: string, args: string[]): SwitchedUser {
  if (program === 'su' || program === 'runuser') return su(args, program);
  if (program === 'sg') {
    const rest = args.filter((a) => a !== '-');
    const c = rest.indexOf('-c');
    if (c !== -1) return { argv: null, shells: [rest[c + 1] ?? ''], stdin: false };
    return rest.length > 1 ? { argv: null, shells: [rest.slice(1).join(' ')], stdin: false } : { argv: null, shells: [], stdin: true };
  }
  if (program === 'newgrp') return { argv: null, shells: [], stdin: true };
  if (program === 'pkexec') {
    let i = 0;
    while (i < args.length && args[i]!.startsWith('-')) i += args[i] === '--user' ? 2 : 1;
    return i < args.length ? { argv: args.slice(i), shells: [], stdin: false } : { argv: null, shells: [], stdin: true };
  }
  // machinectl shell [--uid=U] [[user@]host] [cmd …]
  if (args.find((a) => !a.startsWith('-')) !== 'shell') return { argv: null, shells: [], stdin: false };
  let rest = args.slice(args.indexOf('shell') + 1);
  while (rest.length > 0 && rest[0]!.startsWith('-')) rest = rest.slice(rest[0] === '--uid' || rest[0] === '-E' || rest[0] === '--setenv' ? 2 : 1);
  const cmd = rest.length > 0 && (rest[0]!.includes('@') || rest[0] === '.host') ? rest.slice(1) : rest;
  return cmd.length > 0 ? { argv: cmd, shells: [], stdin: false } : { argv: null, shells: [], stdin: true };
}
