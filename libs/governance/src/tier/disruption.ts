// Taking the machine or everything on it down rather than a file: signalling every process (`kill
// -9 -1`, a negative process group, `pkill`/`killall` of a whole user, `killall5`) or process 1,
// powering off, rebooting or leaving multi-user mode (`shutdown`, `reboot`, `init 0`, `telinit 1`,
// `systemctl reboot`, `systemctl isolate rescue.target`), its firewall or network (network.ts),
// stopping a service the machine's reach, containers or logins rest on (`systemctl stop sshd`,
// `systemctl disable --now docker`), deleting an account or a password (`userdel -r`, `passwd -d`),
// granting an account root through its groups (`usermod -aG sudo x`), remounting read-only,
// mounting over or unmounting a system mount or the workspace, an HTTP DELETE of every index of a
// search store or of a whole repository (`curl -X DELETE es:9200/_all`), and deleting a GitHub
// repository, release or gist through `gh`, or a published package (`npm unpublish`): remote
// teardowns like a cloud delete.
import type { VerbHit } from './files.ts';
import { macosHit } from './macos.ts';
import { networkHit, stoppedUnits } from './network.ts';

const disruption = (detail: string): VerbHit => ({ rule: 'destructive.system_disruption', detail });
const teardown = (detail: string): VerbHit => ({ rule: 'destructive.infra_teardown', detail });

/** `kill`'s operands after its signal options: `-9`, `-KILL`, `-s KILL`, `-n 9`, `--signal KILL`, `--`. */
function killTargets(args: readonly string[]): string[] {
  const targets: string[] = [];
  let signalSeen = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      targets.push(...args.slice(i + 1));
      break;
    }
    if (a === '-s' || a === '-n' || a === '--signal') {
      i++;
      signalSeen = true;
      continue;
    }
    if (a === '-l' || a === '-L' || a === '--list' || a === '--table') return [];
    // The first dash word is the signal (`-9`, `-KILL`); a later `-1` is a process group: every process.
    if (/^-[A-Za-z0-9+]+$/.test(a) && !signalSeen) {
      signalSeen = true;
      continue;
    }
    targets.push(a);
  }
  // `kill -0 PID` only asks whether the process is there.
  return args.includes('-0') ? targets.filter((t) => t === '-1') : targets;
}

/** Options of pkill/killall that take a value (the value is no pattern). */
const VALUED = /^(-[uUgGPstF]|--(user|uid|euid|group|pgroup|parent|session|terminal|pidfile|signal|ns|nslist|older-than|younger-than))$/;

/** pkill/killall's name patterns, and whether it selects by user (-u, -U, --user …). */
function selection(args: readonly string[]): { patterns: string[]; byUser: boolean } {
  const patterns: string[] = [];
  let byUser = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (/^(-[uU]|--user|--uid|--euid)(=.*)?$/.test(a) || /^-[uU].+/.test(a)) byUser = true;
    if (VALUED.test(a)) i++;
    else if (!a.startsWith('-')) patterns.push(a);
  }
  return { patterns, byUser };
}

const POWER = /^(shutdown|reboot|halt|poweroff|kexec)$/;
const SYSTEMCTL_POWER = new Set(['poweroff', 'reboot', 'halt', 'kexec', 'emergency', 'rescue', 'soft-reboot']);
/** Services whose stop cuts the machine off or takes its containers, logs, logins or security monitoring down (the firewall's are network.ts's). */
const CRITICAL_SERVICES =
  /^(ssh|sshd|dbus|dbus-broker|docker|containerd|kubelet|systemd-journald|systemd-logind|systemd-udevd|cron|crond|getty@[^.]*|auditd|apparmor|fail2ban|rsyslog|syslog|syslog-ng|osqueryd|falco|falcon-sensor|wazuh-agent|clamav-daemon|sssd|polkit)(\.service|\.socket)?$/;
const ACCOUNT_REMOVERS = new Set(['userdel', 'deluser', 'groupdel', 'delgroup']);

/** Mount points the machine or the task rests on. */
const SYSTEM_MOUNTS = /^\/(?:$|(?:proc|sys|dev|usr|etc|boot|home|root|var|run|work|opt|bin|sbin|lib)(?:\/|$))/;

/** Remounting read-only, or unmounting what the machine or the task rests on (`umount -a`, `umount -l /work`). */
function mountHit(program: string, args: readonly string[]): VerbHit | null {
  if (program === 'mount') {
    const options = args.flatMap((a, i) => (a === '-o' || a === '--options' ? [args[i + 1] ?? ''] : a.startsWith('-o') && a.length > 2 ? [a.slice(2)] : []));
    const set = options.flatMap((o) => o.split(','));
    if (set.includes('remount') && set.includes('ro')) return disruption('mount: remounting read-only');
    // `mount --bind /dev/null /etc/passwd`, `mount -t tmpfs none /home`: what was there is hidden.
    const operands = args.filter((a, i) => !a.startsWith('-') && !/^(-o|--options|-t|--types|-L|-U|--label|--uuid)$/.test(args[i - 1] ?? ''));
    const point = operands.length >= 2 ? operands[operands.length - 1]! : undefined;
    if (point !== undefined && SYSTEM_MOUNTS.test(point)) return disruption(`mount over ${point}`);
  }
  if (program === 'umount') {
    if (args.some((a) => a === '-a' || a === '--all' || /^-[A-Za-z]*a[A-Za-z]*$/.test(a))) return disruption('umount of every mount');
    const target = args.find((a) => !a.startsWith('-') && SYSTEM_MOUNTS.test(a));
    if (target !== undefined) return disruption(`umount ${target}`);
  }
  return null;
}

/** Groups whose members are root, or can become it (`docker` too, but joining it is every install guide's step). */
const ROOT_GROUPS = /^(sudo|wheel|admin|root|shadow)$/;

/** The groups `usermod -G/-aG GROUPS`, `gpasswd -a USER GROUP`, `adduser USER GROUP` put an account in. */
function joinedGroups(program: string, args: readonly string[]): string[] {
  const operands = args.filter((a) => !a.startsWith('-'));
  if (program === 'usermod') {
    const at = args.findIndex((a) => /^-[a-zA-Z]*G$/.test(a) || a === '--groups' || a === '--append-groups');
    return at === -1 ? [] : (args[at + 1] ?? '').split(',');
  }
  if (program === 'gpasswd' && args.some((a) => a === '-a' || a === '--add' || a === '-M' || a === '--members')) return operands.slice(-1);
  if ((program === 'adduser' || program === 'addgroup') && operands.length === 2) return operands.slice(1);
  return [];
}

/** Deleting a user or group, deleting or locking a password, making an account root: the machine's logins, not a file. */
function accountHit(program: string, args: readonly string[]): VerbHit | null {
  const named = args.some((a) => !a.startsWith('-'));
  if (ACCOUNT_REMOVERS.has(program) && named) return disruption(`${program}: deleting an account`);
  if (program === 'passwd' && args.some((a) => /^(-d|--delete|-l|--lock)$/.test(a))) return disruption('passwd: deleting or locking a password');
  if (program === 'usermod' && args.some((a) => a === '-L' || a === '--lock')) return disruption('usermod --lock');
  const group = joinedGroups(program, args).find((g) => ROOT_GROUPS.test(g) || g.includes('\u0000'));
  if (group !== undefined) return { rule: 'destructive.protected_file', detail: `${program}: an account put in the ${group.replace(/\u0000/g, '…')} group` };
  return null;
}
const GH_DELETES = new Set(['repo', 'release', 'gist', 'secret', 'variable', 'ssh-key', 'gpg-key', 'project']);

function ghHit(args: readonly string[]): VerbHit | null {
  const words = args.filter((a) => !a.startsWith('-'));
  if (words[0] === 'api') {
    const method = args.findIndex((a) => a === '-X' || a === '--method');
    const inline = args.find((a) => /^(-X|--method=)/.test(a) && a.length > 2);
    const value = method >= 0 ? args[method + 1] : inline?.replace(/^(-X|--method=)/, '');
    return value?.toUpperCase() === 'DELETE' ? teardown('gh api DELETE') : null;
  }
  if (words.length >= 2 && GH_DELETES.has(words[0]!) && words[1] === 'delete') return teardown(`gh ${words[0]} delete`);
  return null;
}

/** Paths whose DELETE takes everything: every Elasticsearch index (`/_all`, `/*`, `/logs-*`), a GitHub repository, a GitLab project. */
const DELETES_EVERYTHING = /^\/(_all|[^/]*\*[^/]*)\/?$|^\/repos\/[^/]+\/[^/]+\/?$|^\/api\/v4\/projects\/[^/]+\/?$/;

/** An HTTP DELETE by curl, wget or HTTPie of a URL that takes a whole store or repository. */
function httpDeleteHit(program: string, args: readonly string[]): VerbHit | null {
  const method =
    program === 'http' || program === 'https'
      ? args.find((a) => !a.startsWith('-'))
      : args
          .map((a, i) =>
            /^(-X|--request|--method)$/.test(a) ? args[i + 1] : /^(-X|--request=|--method=)./.test(a) ? a.replace(/^(-X|--request=|--method=)/, '') : undefined,
          )
          .find((m) => m !== undefined);
  if (method?.toUpperCase() !== 'DELETE') return null;
  for (const a of args) {
    const url = /^(?:https?:\/\/)?[\w.-]*(?::\d+)?(\/[^?#]*)/.exec(a.replace(/^['"]|['"]$/g, ''));
    if (url && /[/:.]/.test(a) && DELETES_EVERYTHING.test(url[1]!)) return teardown(`HTTP DELETE of ${url[1]}`);
  }
  return null;
}

/** A command that takes the machine, every process on it, or a remote repository down; null otherwise. */
export function disruptionHit(argv: readonly string[]): VerbHit | null {
  const [program = '', ...args] = argv;
  // -1 is every process the caller may signal.
  const killed = program === 'kill' ? killTargets(args) : [];
  if (killed.includes('-1')) return disruption('kill of every process (-1)');
  if (killed.includes('1')) return disruption('kill of process 1, the init every other process hangs from');
  if (program === 'killall5') return disruption('killall5: every process');
  if (program === 'pkill' || program === 'killall') {
    const { patterns, byUser } = selection(args);
    if (byUser && patterns.length === 0) return disruption(`${program} of every process of a user`);
    if (program === 'pkill' && patterns.some((p) => /^(\.\*?|\^|\.\+|\^\.\*)$/.test(p))) return disruption('pkill of every process');
  }
  const onlyAsks = args.some((a) => a === '--help' || a === '--version' || (program === 'shutdown' && (a === '-c' || a === '--show')));
  if (POWER.test(program) && !onlyAsks) return disruption(program);
  if (program === 'npm' && args.find((a) => !a.startsWith('-')) === 'unpublish') return teardown('npm unpublish');
  // A published version pulled from its registry: crates.io's and RubyGems' yank, NuGet's delete.
  if ((program === 'cargo' && args[0] === 'yank' && !args.includes('--undo')) || (program === 'gem' && args[0] === 'yank')) return teardown(`${program} yank`);
  if ((program === 'nuget' && args[0] === 'delete') || (program === 'dotnet' && args[0] === 'nuget' && args[1] === 'delete')) return teardown('nuget delete');
  if ((program === 'init' || program === 'telinit') && /^[016sS]$/.test(args[0] ?? '')) return disruption(`${program} ${args[0]}`);
  if (program === 'systemctl' && args.includes('isolate')) return disruption('systemctl isolate: every service of another target');
  if (program === 'systemctl' && args.some((a) => SYSTEMCTL_POWER.has(a))) return disruption(`systemctl ${args.find((a) => SYSTEMCTL_POWER.has(a))}`);
  const stopped = stoppedUnits(argv);
  const unit = stopped?.units.find((u) => CRITICAL_SERVICES.test(u));
  if (unit !== undefined) return disruption(program === 'systemctl' ? `systemctl ${stopped!.verb} ${unit}` : `service ${unit} stop`);
  if (program === 'gh') return ghHit(args);
  if (/^(curl|wget|http|https)$/.test(program)) return httpDeleteHit(program, args);
  return accountHit(program, args) ?? mountHit(program, args) ?? networkHit(argv) ?? macosHit(argv);
}
