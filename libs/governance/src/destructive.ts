// The built-in destructive-command tier. Commands are parsed and normalized first (see shell.ts and
// normalize.ts), so quoting, spacing, sudo/env wrappers, `bash -c`, chains, subshells and
// substitutions don't hide what would run. Each rule is one row of DESTRUCTIVE_RULES; a hit names it.
import { effectiveCommand, programName, SHELLS } from './normalize.ts';
import { changeDir, classifyTarget, initialDir, type Dir, type PathContext, type Place } from './paths.ts';
import { parseShell, type Pipeline, type Redirect, type ShellScript, type SimpleCommand } from './shell.ts';

export interface DestructiveRule {
  id: string;
  description: string;
}

export const DESTRUCTIVE_RULES = [
  { id: 'destructive.rm_recursive', description: 'recursive rm of /, a system directory, ~, the workspace root or above it' },
  { id: 'destructive.mkfs', description: 'making a filesystem on a device (mkfs, mke2fs, mkswap, wipefs)' },
  { id: 'destructive.dd_device', description: 'dd writing to a device' },
  { id: 'destructive.device_write', description: 'writing to a block device (redirection, tee, cp, shred)' },
  { id: 'destructive.fork_bomb', description: 'a fork bomb' },
  { id: 'destructive.chmod_chown_recursive', description: 'recursive chmod/chown/chgrp of / or a system directory' },
  { id: 'destructive.git_push_force', description: 'git push --force (or -f, --force-with-lease, --mirror, a +refspec)' },
  { id: 'destructive.git_reset_hard', description: 'git reset --hard' },
  { id: 'destructive.git_clean', description: 'git clean -f (not a dry run)' },
  { id: 'destructive.sql_drop', description: 'DROP TABLE / DATABASE / SCHEMA sent to a database' },
  { id: 'destructive.remote_script', description: 'running a downloaded script (curl|sh, bash <(curl …), sh -c "$(wget …)")' },
  { id: 'destructive.find_delete', description: 'find -delete or -exec rm over /, a system directory or ~' },
] as const satisfies readonly DestructiveRule[];

export type DestructiveRuleId = (typeof DESTRUCTIVE_RULES)[number]['id'];

export interface DestructiveHit {
  rule: DestructiveRuleId;
  /** What matched, for the reason shown to the agent. */
  detail: string;
}

const DOWNLOADERS = new Set(['curl', 'wget', 'fetch', 'aria2c', 'http', 'https', 'xh', 'lwp-request', 'GET']);
const SQL_CLIENTS = new Set(['psql', 'mysql', 'mariadb', 'sqlite3', 'sqlite', 'sqlcmd', 'clickhouse', 'clickhouse-client', 'duckdb', 'cockroach', 'pgcli', 'mycli', 'litecli', 'usql', 'sqlplus', 'snowsql', 'trino', 'presto', 'spark-sql', 'bq', 'isql']);
export const SQL_DROP = /\bdrop\s+(table|database|schema)\b/i;
const BLOCK_DEVICE = /^\/dev\/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|disk\d|rdisk\d|md\d|mapper\/|dm-\d|loop\d|nbd\d)/;
const FORK_BOMBS = [
  /([A-Za-z_:.][\w:.-]*)\(\)\{[^}]*?\1\|\1&?[^}]*\}/, // :(){ :|:& };:  (whitespace removed)
  /function([A-Za-z_][\w-]*)(?:\(\))?\{[^}]*\1\|\1/,
  /\bforkwhilefork\b/,
  /while(?:True|1):os\.fork\(\)/,
];

const isInterpreter = (p: string): boolean => SHELLS.has(p) || /^(python[\d.]*|perl|ruby|node|php|pwsh|powershell)$/.test(p);
const isFlag = (a: string): boolean => a.startsWith('-') && a !== '-';
const shortFlags = (a: string): string => (/^-[A-Za-z0-9]+$/.test(a) ? a.slice(1) : '');
const hit = (rule: DestructiveRuleId, detail: string): DestructiveHit => ({ rule, detail });

function rmHit(args: string[], dir: Dir, ctx: PathContext): DestructiveHit | null {
  let recursive = false;
  const targets: string[] = [];
  let options = true;
  for (const a of args) {
    if (options && a === '--') options = false;
    else if (options && a.startsWith('--')) recursive ||= a === '--recursive';
    else if (options && isFlag(a)) recursive ||= /[rR]/.test(a.slice(1));
    else targets.push(a);
  }
  if (!recursive) return null;
  for (const t of targets) {
    const place = classifyTarget(dir, t, ctx);
    if (place) return hit('destructive.rm_recursive', `rm -r of ${describePlace(place)} (${t})`);
  }
  return null;
}

function describePlace(place: Place): string {
  return { root: 'the filesystem root', system: 'a system directory', home: 'the home directory', workspace: 'the workspace root', ancestor: 'a directory above the workspace' }[place];
}

function gitHit(args: string[]): DestructiveHit | null {
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-')) {
    i += ['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path', '--config-env'].includes(args[i]!) ? 2 : 1;
  }
  const sub = args[i];
  const rest = args.slice(i + 1);
  if (sub === 'push') {
    const force = rest.some((a) => a === '--force' || a === '--mirror' || a.startsWith('--force-with-lease') || shortFlags(a).includes('f'));
    const plusRef = rest.filter((a) => !a.startsWith('-')).some((a) => a.startsWith('+'));
    if (force || plusRef) return hit('destructive.git_push_force', 'git push rewriting remote history');
  }
  if (sub === 'reset' && rest.includes('--hard')) return hit('destructive.git_reset_hard', 'git reset --hard');
  if (sub === 'clean') {
    const force = rest.some((a) => a === '--force' || shortFlags(a).includes('f'));
    const dry = rest.some((a) => a === '--dry-run' || shortFlags(a).includes('n'));
    if (force && !dry) return hit('destructive.git_clean', 'git clean -f');
  }
  return null;
}

function writesDevice(redirects: Redirect[]): string | null {
  const r = redirects.find((x) => ['>', '>>', '>|', '&>', '<>', '>&'].includes(x.op) && BLOCK_DEVICE.test(x.target));
  return r ? r.target : null;
}

function commandHit(cmd: SimpleCommand, argv: string[], dir: Dir, ctx: PathContext): DestructiveHit | null {
  const device = writesDevice(cmd.redirects);
  if (device) return hit('destructive.device_write', `write to ${device}`);
  const program = argv[0] ?? '';
  const args = argv.slice(1);
  if (program === 'rm') return rmHit(args, dir, ctx);
  if (/^(mkfs(\..+)?|mke2fs|mkswap|wipefs|mkntfs|mkdosfs|mkfs_.+)$/.test(program) && args.some((a) => a.startsWith('/dev/'))) {
    return hit('destructive.mkfs', `${program} on a device`);
  }
  if (program === 'dd') {
    const of = args.find((a) => a.startsWith('of=') && BLOCK_DEVICE.test(a.slice(3)));
    if (of) return hit('destructive.dd_device', `dd ${of}`);
  }
  if (['tee', 'cp', 'shred'].includes(program) && args.some((a) => BLOCK_DEVICE.test(a))) {
    return hit('destructive.device_write', `${program} to a block device`);
  }
  if (['chmod', 'chown', 'chgrp'].includes(program) && args.some((a) => a === '--recursive' || /R/.test(shortFlags(a)))) {
    const target = args.find((a) => !isFlag(a) && ['root', 'system'].includes(classifyTarget(dir, a, ctx) ?? ''));
    if (target) return hit('destructive.chmod_chown_recursive', `${program} -R ${target}`);
  }
  if (program === 'git') return gitHit(args);
  if (isInterpreter(program) && !SHELLS.has(program)) {
    const code = args.find((_, i) => i > 0 && /^-[ceE]$/.test(args[i - 1]!));
    if (code !== undefined && FORK_BOMBS.some((re) => re.test(code.replace(/\s+/g, '')))) return hit('destructive.fork_bomb', `${program} fork bomb`);
  }
  if (program === 'find') {
    const stop = args.findIndex((a) => a.startsWith('-') || a === '(' || a === '!');
    const roots = stop === -1 ? args : args.slice(0, stop);
    const deletes = args.includes('-delete') || /(^| )-(exec|execdir|ok|okdir) (\S*\/)?rm /.test(args.join(' '));
    const root = roots.find((a) => ['root', 'system', 'home'].includes(classifyTarget(dir, a, ctx) ?? ''));
    if (deletes && root) return hit('destructive.find_delete', `find ${root} deleting`);
  }
  if (SQL_CLIENTS.has(program) && [...args, ...cmd.redirects.map((r) => r.target)].some((a) => SQL_DROP.test(a))) {
    return hit('destructive.sql_drop', `${program}: ${SQL_DROP.exec([...args, ...cmd.redirects.map((r) => r.target)].join(' '))![0]}`);
  }
  const runsDownload = (word: string): boolean => /^(\$\(|`|<\()/.test(word) && cmd.substitutions.some(containsDownloader);
  if (runsDownload(cmd.argv[0] ?? '') || ((isInterpreter(program) || program === 'source' || program === '.') && args.some(runsDownload))) {
    return hit('destructive.remote_script', 'running a downloaded script');
  }
  return null;
}

function containsDownloader(script: ShellScript): boolean {
  return script.pipelines.some((p) => p.commands.some(stageHasDownloader));
}

function stageHasDownloader(cmd: SimpleCommand): boolean {
  if (cmd.group && containsDownloader(cmd.group)) return true;
  return DOWNLOADERS.has(effectiveCommand(cmd.argv).argv[0] ?? '');
}

/** A pipeline feeding a download into an interpreter that runs its stdin, or SQL text into a client. */
function pipelineHit(pipeline: Pipeline): DestructiveHit | null {
  const stages = pipeline.commands.map((c) => effectiveCommand(c.argv).argv);
  const firstDownload = pipeline.commands.findIndex(stageHasDownloader);
  if (firstDownload !== -1) {
    const runner = stages.slice(firstDownload + 1).find((argv) => {
      const program = argv[0] ?? '';
      return isInterpreter(program) && argv.slice(1).every((a) => a === '-' || a === '-s' || (isFlag(a) && !/^-[cmeE]$/.test(a) && !/^-[A-Za-z]*c$/.test(a)));
    });
    if (runner) return hit('destructive.remote_script', `download piped into ${runner[0]}`);
  }
  if (stages.some((argv) => SQL_CLIENTS.has(argv[0] ?? ''))) {
    const text = pipeline.commands.flatMap((c) => [...c.argv, ...c.redirects.map((r) => r.target)]).find((a) => SQL_DROP.test(a));
    if (text) return hit('destructive.sql_drop', `${SQL_DROP.exec(text)![0]} piped into a database client`);
  }
  return null;
}

function walk(script: ShellScript, start: Dir, ctx: PathContext, depth: number): DestructiveHit | null {
  if (depth > 8) return null;
  // Quoted text is data at this level; a quoted script that runs (`bash -c '…'`) is walked on its own.
  const compact = script.raw.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, '').replace(/\s+/g, '');
  if (FORK_BOMBS.some((re) => re.test(compact))) return hit('destructive.fork_bomb', 'a fork bomb');
  let dir = start;
  for (const pipeline of script.pipelines) {
    const p = pipelineHit(pipeline);
    if (p) return p;
    for (const cmd of pipeline.commands) {
      const inner = [...(cmd.group ? [cmd.group] : []), ...cmd.substitutions].map((s) => walk(s, dir, ctx, depth + 1)).find(Boolean);
      if (inner) return inner;
      const eff = effectiveCommand(cmd.argv);
      const found = commandHit(cmd, eff.argv, dir, ctx) ?? eff.execs.map((e) => commandHit({ argv: e, redirects: [], substitutions: [] }, [programName(e[0] ?? ''), ...e.slice(1)], dir, ctx)).find(Boolean);
      if (found) return found;
      for (const s of eff.scripts) {
        const nested = walk(s, dir, ctx, depth + 1);
        if (nested) return nested;
      }
      if ((eff.argv[0] === 'cd' || eff.argv[0] === 'pushd') && pipeline.commands.length === 1) dir = changeDir(dir, eff.argv.slice(1));
    }
  }
  return null;
}

/** The first destructive-tier rule a shell command line hits, or null. */
export function detectDestructiveCommand(command: string, ctx: PathContext = {}): DestructiveHit | null {
  return walk(parseShell(command), initialDir(ctx), ctx, 0);
}
