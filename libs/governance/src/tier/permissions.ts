// Taking a protected place away from its owner by its permissions, recursive or not: a chmod that
// leaves the owner unable to read /, a system directory, home, the workspace root or above it, a
// dotfile or dot-directory in home or another protected file (`chmod 000 ~/.ssh`, `chmod -R a-rwx
// ~`, `chmod u= /work`), or unable to enter /, a system directory, home or a dot-directory
// (`chmod 644 ~`, `chmod -R 600 ~/.ssh`). Tightening what others may do (`chmod 700 ~/.ssh`,
// `chmod -R go-rwx ~/.ssh`, `chmod 600 ~/.ssh/id_ed25519`) and adding (`chmod +x f`) take nothing
// from the owner. A system program its owner can no longer run (`chmod -x /bin/bash`) is taken too.
// Handing a protected place to everyone is the other way to lose it: writable by others (`chmod 777
// ~/.ssh`, `chmod o+w /etc/sudoers`) or run as its owner by anyone (`chmod u+s /bin/bash`, `chmod
// 4755 /usr/bin/python3`). A mode that cannot be read is the worst one. A target that cannot be
// resolved is judged only when the change is recursive, as for rm: a plain chmod of a file is
// everyday work.
import type { Scope } from '../expand.ts';
import { absolutePath, classifyTarget, describePlace, isProtectedFile, UNKNOWN, type Place } from '../paths.ts';
import { longOpt, type VerbHit } from './files.ts';
import { isHomeDotEntry } from './harness-config.ts';

/** Places the owner must still be able to enter: directories whose every path runs through them. */
const ENTERED: readonly Place[] = ['root', 'system', 'home'];
/** Dot-directories a plain chmod names as directories (a dotfile is as often a file: `chmod 600 ~/.netrc`). */
const DOT_DIRECTORIES = /^\.(ssh|gnupg|config|aws|kube|docker)\/?$/;

/** Runtime, served and logged files (a socket, a web root, a log): opening one to everyone (`chmod 666 /var/run/docker.sock`, `chmod -R 777 /var/www/html`) is a habit, not a loss. */
const RUNTIME = /^\/(var|run|srv|opt)\//;
/** System programs: taking their execute bit is taking the program. */
const PROGRAM_DIRS = /^\/(usr\/(local\/)?)?s?bin\/[^/]+$/;

interface Loss {
  read: boolean;
  enter: boolean;
}

/** What a mode gives away: writing by others (`777`, `o+w`, `a+w`), or running as the owner (`4755`, `u+s`, `+s`). */
export function grants(mode: string): { othersWrite: boolean; setId: boolean } {
  if (mode.includes(UNKNOWN)) return { othersWrite: true, setId: true };
  if (/^[0-7]{1,4}$/.test(mode)) {
    const bits = parseInt(mode, 8);
    return { othersWrite: (bits & 0o2) !== 0, setId: mode.length === 4 && (bits & 0o6000) !== 0 };
  }
  let othersWrite = false;
  let setId = false;
  for (const m of mode.split(',').map((clause) => /^([ugoa]*)((?:[-+=][rwxXstugo]*)+)$/.exec(clause))) {
    if (!m) continue;
    for (const [, op, perms = ''] of m[2]!.matchAll(/([-+=])([rwxXstugo]*)/g)) {
      if (op === '-') continue;
      othersWrite ||= /[oa]/.test(m[1]!) && perms.includes('w');
      setId ||= !/^o+$/.test(m[1]!) && perms.includes('s');
    }
  }
  return { othersWrite, setId };
}

/** What a mode takes from the owner: `000`, `644` on a directory, `a-r`, `u=w`, `-rwx`; `go-rwx` takes nothing. */
export function ownerLoss(mode: string): Loss {
  if (mode.includes(UNKNOWN)) return { read: true, enter: true };
  if (/^[0-7]{1,4}$/.test(mode)) {
    const owner = (parseInt(mode, 8) >> 6) & 7;
    return { read: (owner & 4) === 0, enter: (owner & 1) === 0 };
  }
  let read = true;
  let enter = true;
  for (const clause of mode.split(',')) {
    const m = /^([ugoa]*)((?:[-+=][rwxXstugo]*)+)$/.exec(clause);
    if (!m) return { read: false, enter: false };
    if (m[1] !== '' && !/[ua]/.test(m[1]!)) continue;
    for (const [, op, perms = ''] of m[2]!.matchAll(/([-+=])([rwxXstugo]*)/g)) {
      if (/[ugo]/.test(perms)) continue;
      if (op === '=' || perms.includes('r')) read = op === '-' ? false : perms.includes('r');
      if (op === '=' || /[xX]/.test(perms)) enter = op === '-' ? false : /[xX]/.test(perms);
    }
  }
  return { read: !read, enter: !enter };
}

/** chmod's words: recursive or not, the mode (`--reference` is one the line cannot show) and the targets. */
function chmodWords(args: readonly string[]): { recursive: boolean; mode: string | undefined; targets: string[] } {
  let recursive = false;
  let mode: string | undefined;
  const targets: string[] = [];
  let options = true;
  for (const a of args) {
    if (options && a === '--') options = false;
    else if (options && (/^-[Rcfvh]+$/.test(a) || longOpt(a, 'recursive', 3))) recursive ||= a.includes('R') || a.startsWith('--');
    else if (options && a.startsWith('--reference')) mode = UNKNOWN;
    else if (options && /^--/.test(a)) continue;
    else if (mode === undefined) mode = a;
    else targets.push(a);
  }
  return { recursive, mode, targets };
}

/** What the target is, as far as its permissions go: a protected place, a dot-directory, another protected file; null when none. */
function protectedKind(t: string, recursive: boolean, scope: Scope): { what: string; entered: boolean; place?: Place } | null {
  const unresolved = t.includes(UNKNOWN) || /[*?[]/.test(t);
  const place = recursive || !unresolved ? classifyTarget(scope.dir, t, scope.ctx) : null;
  if (place) return { what: describePlace(place), entered: ENTERED.includes(place), place };
  const dot = !unresolved && isHomeDotEntry(scope.dir, t, scope);
  if (dot) return { what: t, entered: recursive || DOT_DIRECTORIES.test(t.replace(/^.*\/(?=[^/]+\/?$)/, '')) || t.endsWith('/') };
  return isProtectedFile(scope.dir, t, scope.ctx) ? { what: t, entered: recursive } : null;
}

/** A chmod that takes a protected place away from its owner, or hands it to everyone; null otherwise. */
export function permissionHit(argv: readonly string[], scope: Scope): VerbHit | null {
  const [program = '', ...args] = argv;
  if (program !== 'chmod') return null;
  const { recursive, mode, targets } = chmodWords(args);
  if (mode === undefined) return null;
  const loss = ownerLoss(mode);
  const given = grants(mode);
  const shown = (text: string): string => text.replace(/\u0000/g, '…');
  const hit = (what: string, outcome: string): VerbHit => ({
    rule: 'destructive.chmod_chown_recursive',
    detail: `chmod ${shown(mode)} of ${shown(what)}: ${outcome}`,
  });
  for (const t of targets) {
    const kind = protectedKind(t, recursive, scope);
    if (!kind) continue;
    const path = absolutePath(scope.dir, t, scope.ctx);
    const program = PROGRAM_DIRS.test(path);
    if (loss.read || (loss.enter && (kind.entered || program)))
      return hit(kind.what, `its owner could no longer ${loss.read ? 'read' : program ? 'run' : 'enter'} it`);
    // The project's own tree, or a data volume, open to everyone is a habit, not a loss of the machine.
    const opened = kind.place === undefined ? !RUNTIME.test(path) : ENTERED.includes(kind.place);
    if (given.othersWrite && opened) return hit(kind.what, 'anyone could change it');
    if (given.setId && kind.place === undefined) return hit(kind.what, "anyone could run it with its owner's rights");
  }
  return null;
}
