// Taking a protected place away from its owner by its permissions, recursive or not: a chmod that
// leaves the owner unable to read /, a system directory, home, the workspace root or above it, a
// dotfile or dot-directory in home or another protected file (`chmod 000 ~/.ssh`, `chmod -R a-rwx
// ~`, `chmod u= /work`), or unable to enter /, a system directory, home or a dot-directory
// (`chmod 644 ~`, `chmod -R 600 ~/.ssh`). Tightening what others may do (`chmod 700 ~/.ssh`,
// `chmod -R go-rwx ~/.ssh`, `chmod 600 ~/.ssh/id_ed25519`) and adding (`chmod +x f`) take nothing
// from the owner. A mode that cannot be read is the worst one. A target that cannot be resolved is
// judged only when the change is recursive, as for rm: a plain chmod of a file is everyday work.
import type { Scope } from '../expand.ts';
import { classifyTarget, describePlace, isProtectedFile, UNKNOWN, type Place } from '../paths.ts';
import { longOpt, type VerbHit } from './files.ts';
import { isHomeDotEntry } from './harness-config.ts';

/** Places the owner must still be able to enter: directories whose every path runs through them. */
const ENTERED: readonly Place[] = ['root', 'system', 'home'];
/** Dot-directories a plain chmod names as directories (a dotfile is as often a file: `chmod 600 ~/.netrc`). */
const DOT_DIRECTORIES = /^\.(ssh|gnupg|config|aws|kube|docker)\/?$/;

interface Loss {
  read: boolean;
  enter: boolean;
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
function protectedKind(t: string, recursive: boolean, scope: Scope): { what: string; entered: boolean } | null {
  const unresolved = t.includes(UNKNOWN) || /[*?[]/.test(t);
  const place = recursive || !unresolved ? classifyTarget(scope.dir, t, scope.ctx) : null;
  if (place) return { what: describePlace(place), entered: ENTERED.includes(place) };
  const dot = !unresolved && isHomeDotEntry(scope.dir, t, scope);
  if (dot) return { what: t, entered: recursive || DOT_DIRECTORIES.test(t.replace(/^.*\/(?=[^/]+\/?$)/, '')) || t.endsWith('/') };
  return isProtectedFile(scope.dir, t, scope.ctx) ? { what: t, entered: recursive } : null;
}

/** A chmod that takes a protected place away from its owner; null otherwise. */
export function permissionHit(argv: readonly string[], scope: Scope): VerbHit | null {
  const [program = '', ...args] = argv;
  if (program !== 'chmod') return null;
  const { recursive, mode, targets } = chmodWords(args);
  if (mode === undefined) return null;
  const loss = ownerLoss(mode);
  if (!loss.read && !loss.enter) return null;
  for (const t of targets) {
    const kind = protectedKind(t, recursive, scope);
    if (kind && (loss.read || (loss.enter && kind.entered)))
      return {
        rule: 'destructive.chmod_chown_recursive',
        detail: `chmod ${mode.replace(/\u0000/g, '…')} of ${kind.what.replace(/\u0000/g, '…')}: its owner could no longer ${loss.read ? 'read' : 'enter'} it`,
      };
  }
  return null;
}
