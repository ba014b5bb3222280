// Writing into what runs later without a tool call: a line appended to a shell start-up file is run
// by every shell the agent starts next (`echo 'rm -rf ~' >> ~/.bash_profile`), so what echo or printf
// writes there is judged now as a command; and an append to ~/.ssh (a key into authorized_keys, a
// ProxyCommand into config; known_hosts aside) is a protected write, as writing there with `>` is. So
// is an append to the system files that grant access or run code for every user or at boot
// (/etc/sudoers, /etc/passwd, /etc/crontab, /etc/profile.d/…, /etc/ld.so.preload …); /etc/hosts,
// resolv.conf, apt sources and sysctl.conf stay the everyday appends they are.
import { pathForms } from '../disk.ts';
import type { Scope } from '../expand.ts';
import { absolutePath, homeOf } from '../paths.ts';
import type { Redirect } from '../shell.ts';
import type { VerbHit } from './files.ts';

const STARTUP =
  /^(\.bashrc|\.bash_profile|\.bash_login|\.bash_logout|\.bash_aliases|\.profile|\.zshrc|\.zprofile|\.zshenv|\.zlogin|\.zlogout|\.kshrc|\.mkshrc|\.cshrc|\.tcshrc|\.config\/fish\/config\.fish)$/;
const WRITES = new Set(['>', '>>', '>|', '&>', '&>>']);
const SYSTEM_GRANTS =
  /^\/etc\/(sudoers|sudoers\.d\/.+|passwd|shadow|group|gshadow|subuid|subgid|crontab|anacrontab|cron\.[^/]+\/.+|profile|profile\.d\/.+|bash\.bashrc|bashrc|zshenv|zshrc|zprofile|zsh\/.+|environment|ld\.so\.preload|ld\.so\.conf|ld\.so\.conf\.d\/.+|rc\.local|pam\.d\/.+|security\/.+|ssh\/.+|systemd\/.+|init\.d\/.+|xdg\/autostart\/.+)$/;

interface StartupFindings {
  hit: VerbHit | null;
  /** What echo/printf writes into a start-up file, to be judged as a command line. */
  shells: string[];
}

/** echo's or printf's output, as near as the command line tells it. */
function printed(program: string, args: readonly string[]): string | null {
  const unescape = (s: string): string => s.replace(/\\n/g, '\n').replace(/\\t/g, '\t');
  if (program === 'echo') {
    let i = 0;
    while (i < args.length && /^-[neE]+$/.test(args[i]!)) i++;
    return unescape(args.slice(i).join(' '));
  }
  if (program === 'printf') {
    const [format = '', ...values] = args[0] === '--' ? args.slice(1) : args;
    return format.includes('%') ? unescape([format.replace(/%[-\d.]*[sbdq]/g, ''), ...values].join('\n')) : unescape(format);
  }
  return null;
}

export function startupFileWrites(argv: readonly string[], redirects: readonly Redirect[], scope: Scope): StartupFindings {
  const [program = '', ...args] = argv;
  const home = homeOf(scope.ctx);
  const inHome = (t: string): string | null => {
    const abs = absolutePath(scope.dir, t, scope.ctx);
    return abs.startsWith(`${home}/`) ? abs.slice(home.length + 1) : null;
  };
  const appends = redirects.filter((r) => r.op === '>>' || r.op === '&>>').map((r) => r.target);
  if (program === 'tee' && args.some((a) => /^-[a-zA-Z]*a$|^--append$/.test(a))) appends.push(...args.filter((a) => !a.startsWith('-')));
  // known_hosts is what `ssh-keyscan host >> ~/.ssh/known_hosts` adds to every day.
  const ssh = appends.find((t) => /^\.ssh(\/|$)/.test(inHome(t) ?? '') && !/^\.ssh\/known_hosts$/.test(inHome(t) ?? ''));
  if (ssh !== undefined) return { hit: { rule: 'destructive.protected_file', detail: `appending to ${ssh}` }, shells: [] };
  const system = appends.find((t) => pathForms(absolutePath(scope.dir, t, scope.ctx), scope.ctx).some((p) => SYSTEM_GRANTS.test(p)));
  if (system !== undefined) return { hit: { rule: 'destructive.protected_file', detail: `appending to ${system}` }, shells: [] };
  const startup = redirects.filter((r) => WRITES.has(r.op)).some((r) => STARTUP.test(inHome(r.target) ?? ''));
  // `eval "$(pyenv init -)"`, the tools' own init idiom, is left out: what it runs is the tool's.
  const text = startup ? printed(program, args)?.replace(/\beval\s+"\$\([^)]*\)"/g, 'true') : null;
  return { hit: null, shells: text ? [text] : [] };
}
