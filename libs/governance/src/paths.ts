// Where a path argument points, as far as a command line can tell: the filesystem root, a system
// directory, the home directory, the workspace root or one of its ancestors — the places whose
// recursive removal the destructive tier refuses — and whether a file is one whose overwrite it
// refuses. Paths are resolved to absolute strings that may hold UNKNOWN (text the gate cannot know:
// an unset variable, a command's output) and globs; such a path is judged by the worst place it
// could name. `cd` is tracked by the caller so `cd / && rm -rf *` is seen.

import { pathForms, type DiskAsks, type DiskView } from './disk.ts';

import { isHarnessConfigAbs } from './tier/harness-config.ts';
import { resolveProcAliases } from './tier/proc-aliases.ts';

export type Place = 'root' | 'system' | 'data' | 'home' | 'workspace' | 'ancestor';

/** Stands for text that cannot be resolved statically; it may be empty, `..`, or contain `/`. */
export const UNKNOWN = '\u0000';
const MAX_UNKNOWN_PARTS = 8;

export interface PathContext {
  /** The workspace root (the call's cwd) when known. */
  cwd?: string;
  home?: string;
  /** What the gate found on disk (real paths, scripts): a path check holds for the path or its real path. */
  disk?: DiskView;
  /** Collects what the tier would have liked to know from disk (diskQuestions). */
  asks?: DiskAsks;
  /** Symbolic links the command line made earlier (link → target, absolute): a path through one reaches its target. */
  links?: Map<string, string>;
}

const SYSTEM_TOP =
  'bin boot dev etc home lib lib32 lib64 libx32 opt proc root sbin srv sys usr var mnt media snap System Users Applications Library private Volumes'.split(' ');
const SYSTEM_SECOND =
  'usr/bin usr/lib usr/lib64 usr/local usr/local/bin usr/local/lib usr/local/sbin usr/sbin usr/share var/lib System/Library private/etc private/var'.split(' ');
/** Trees whose files an agent has no business overwriting or deleting, and the machine's files at the root (`/swapfile`). */
const SYSTEM_FILE_TREES =
  /^\/(swapfile|swap\.img|vmlinuz(\.old)?|initrd\.img(\.old)?)$|^\/(etc|bin|sbin|boot|lib|lib32|lib64|libx32|proc|sys|root|System|private\/etc|usr\/(?!local(\/|$))[^/]+|var\/(?!tmp(\/|$))[^/]+)(\/|$)/;
/** First-level entries of home that are caches or tool stores, not configuration. */
/** A path that ends in a directory or file every home keeps its keys or shell start-up in, after unknown text. */
const HOME_SECRETS =
  /\u0000[^/]*\/(?:\.ssh|\.gnupg|\.aws|\.azure|\.kube|\.docker|\.netrc|\.git-credentials|\.pypirc|\.bashrc|\.bash_profile|\.bash_login|\.profile|\.zshrc|\.zprofile|\.zshenv|\.gitconfig)(?:\/[^\u0000]*)?$/;
const HOME_SCRATCH = new Set([
  '.cache',
  '.npm',
  '.local',
  '.cargo',
  '.rustup',
  '.yarn',
  '.pnpm-store',
  '.m2',
  '.gradle',
  '.nvm',
  '.bun',
  '.deno',
  '.node-gyp',
  'tmp',
]);
/** Placeholders for a home or workspace whose absolute path is not known. */
const HOME_PLACEHOLDER = '/\u0001home';
const WS_PLACEHOLDER = '/\u0001workspace';

export const homeOf = (ctx: PathContext): string => (ctx.home?.startsWith('/') ? normalizeAbs(ctx.home) : HOME_PLACEHOLDER);
export const workspaceOf = (ctx: PathContext): string => (ctx.cwd?.startsWith('/') ? normalizeAbs(ctx.cwd) : WS_PLACEHOLDER);

/** Resolve `.` and `..` segments of an absolute path; a segment holding UNKNOWN stops `..` from climbing past it. */
export function normalizeAbs(path: string): string {
  const segs: string[] = [];
  for (const s of path.split('/')) {
    if (s === '' || s === '.') continue;
    if (s === '..' && segs.length > 0 && !segs[segs.length - 1]!.includes(UNKNOWN) && segs[segs.length - 1] !== '..') segs.pop();
    else if (s !== '..' || segs.length > 0) segs.push(s);
  }
  return '/' + segs.join('/');
}

const HOME_PREFIX = /^(~[A-Za-z0-9_.-]*)(?=\/|$)/;

/** A path word as an absolute path (possibly holding UNKNOWN or globs), from directory `dir`. */
export function absolutePath(dir: string, word: string, ctx: PathContext): string {
  const resolved = (path: string): string => throughLinks(normalizeAbs(resolveProcAliases(path, dir)), ctx);
  if (word.startsWith('/')) return resolved(word);
  const home = HOME_PREFIX.exec(word);
  if (home) return resolved(homeOf(ctx) + word.slice(home[0].length));
  if (word.startsWith(UNKNOWN)) return normalizeAbs(word.replace(/^\u0000+/, `/${UNKNOWN}`));
  return resolved(`${dir}/${word}`);
}

/** A path under a link the line made (`g/objects` after `ln -s .git g`), as the path it reaches; the link itself stays. */
function throughLinks(path: string, ctx: PathContext): string {
  if (!ctx.links?.size) return path;
  // The longest first: a link inside another (`x` and `x/.git`) is the one the path goes through.
  const through = [...(ctx.links ?? [])].filter(([link]) => path.startsWith(`${link}/`)).sort(([a], [b]) => b.length - a.length)[0];
  return through === undefined ? path : normalizeAbs(through[1] + path.slice(through[0].length));
}

/** The places a destructive verb must not reach, as absolute paths. */
function protectedPlaces(ctx: PathContext): [string, Place][] {
  const ws = workspaceOf(ctx);
  const places: [string, Place][] = [
    ['/', 'root'],
    [homeOf(ctx), 'home'],
    [ws, 'workspace'],
  ];
  const segs = ws.split('/').filter(Boolean);
  for (let n = segs.length - 1; n >= 1; n--) places.push(['/' + segs.slice(0, n).join('/'), 'ancestor']);
  for (const s of SYSTEM_TOP) places.push([`/${s}`, 'system']);
  for (const s of SYSTEM_SECOND) places.push([`/${s}`, 'system']);
  return places;
}

const hasWildcard = (p: string): boolean => p.includes(UNKNOWN) || /[*?[]/.test(p);

/** A glob (and UNKNOWN, which may hold `/`) as an anchored regular expression over a whole path. */
function patternRegex(path: string): RegExp {
  let re = '';
  for (let i = 0; i < path.length; i++) {
    const c = path[i]!;
    if (c === '/' && path[i + 1] === UNKNOWN) {
      // A path that starts with unknown text (`$X/y`) is below some directory; elsewhere `/` +
      // unknown text may be nothing at all, or any path below.
      re += i === 0 ? '/.+' : '(?:/.*)?';
      i++;
    } else if (c === UNKNOWN) re += '.*';
    else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const end = path.indexOf(']', i + 2);
      if (end === -1) re += '\\[';
      else {
        re += `[${path
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else re += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${re}/?$`);
}

/**
 * A directory of its own at the top of the filesystem (`/data`, `/backup`, `/host`), a volume mounted
 * for data (`/mnt/data`, `/srv/www`), a user's home or an application (`/Users/alice`, `/home/bob`,
 * `/Applications/Xcode.app`): not the workspace and not a temp directory, so whole trees of something
 * the machine keeps.
 */
const DATA_DIRS = /^\/(?!tmp$)[^/]{2,}$|^\/(?:mnt|media|srv|opt|Volumes|Users|home|Applications|Library|System)\/[^/]+$/;
/** A user's own files in home: documents, projects, the desktop (`rm -rf ~/Documents`, `~/Projects`, `~/Library`). */
const USER_DIRS =
  /^(Documents|Desktop|Downloads|Pictures|Music|Movies|Videos|Library|Applications|Public|Templates|Dropbox|OneDrive|Google Drive|iCloud Drive|Projects|projects|Code|code|src|dev|Developer|work|workspace|repos|git|go|Sites)$/;

/** A last segment naming everything in a directory: `*`, `.*`, `{*,.*}`, and the dotfile idioms `.??*`, `.[!.]*`, `.[^.]*`, `..?*`. */
const EVERYTHING_IN = /^(\*|\.\*|\{\*,\.\*\}|\{\.\*,\*\}|\.\?\?\*|\.\[[!^]\.\]\*|\.\.\?\*)$/;
/** `..` after an unknown segment (`"$(git rev-parse --show-toplevel)/.."`): the parent of a place the line cannot name. */
const ABOVE_UNKNOWN = /\u0000[^/]*\/\.\.(\/|$)/;

function exactPlace(path: string, ctx: PathContext): Place | null {
  const home = homeOf(ctx);
  const inHome = path.startsWith(home + '/') && USER_DIRS.test(path.slice(home.length + 1));
  return protectedPlaces(ctx).find(([p]) => p === path)?.[1] ?? (DATA_DIRS.test(path) || inHome ? 'data' : null);
}

/**
 * Which protected place an absolute path (from absolutePath) is, or could be. A last segment of `*`
 * or `.*` (everything in a directory) counts as the directory itself; another glob or UNKNOWN
 * counts as every place it could match, and UNKNOWN alone in a segment could also be `..`.
 */
export function classifyAbs(path: string, ctx: PathContext): Place | null {
  const lastSlash = path.lastIndexOf('/');
  const last = path.slice(lastSlash + 1);
  if (EVERYTHING_IN.test(last)) return classifyAbs(path.slice(0, lastSlash) || '/', ctx);
  if (!hasWildcard(path)) return exactPlace(path, ctx);
  // More unknown parts than a real path has, or the parent of an unknown place: no telling where it points, so the worst place.
  if (path.split(UNKNOWN).length - 1 > MAX_UNKNOWN_PARTS || ABOVE_UNKNOWN.test(path)) return 'root';
  const re = patternRegex(path);
  const found = protectedPlaces(ctx).find(([p]) => re.test(p));
  if (found) return found[1];
  // An unknown segment may be `..`: try it as one.
  const climbed = path.replace(/(?<=.)\/\u0000(?=\/|$)/, '/..');
  return climbed !== path ? classifyAbs(normalizeAbs(climbed), ctx) : null;
}

export function classifyTarget(dir: string, word: string, ctx: PathContext): Place | null {
  for (const path of pathForms(absolutePath(dir, word, ctx), ctx)) {
    const place = classifyAbs(path, ctx);
    if (place) return place;
  }
  return null;
}

/**
 * Whether overwriting, truncating or deleting this file damages the machine rather than the task:
 * a file in a system tree, or configuration directly under home (dotfiles, ~/.ssh …; not caches).
 * An unresolvable path is not assumed to be one: plain writes are everyday work.
 */
export function isProtectedFile(dir: string, word: string, ctx: PathContext): boolean {
  return pathForms(absolutePath(dir, word, ctx), ctx).some((path) => isProtectedAbs(path, ctx));
}

function isProtectedAbs(path: string, ctx: PathContext): boolean {
  if (isHarnessConfigAbs(path, homeOf(ctx))) return true;
  // `"$X/.ssh"`: whatever the unknown part is, a credential or shell-start file of that name is home's.
  if (path.includes(UNKNOWN)) return HOME_SECRETS.test(path);
  const prefix = path.replace(/[*?[].*$/, '');
  // Terraform's record of what it manages: overwritten or lost, the infrastructure is unmanaged.
  if (/\.tfstate(\.backup)?$/.test(path)) return true;
  if (SYSTEM_FILE_TREES.test(prefix) && !prefix.startsWith(homeOf(ctx) + '/')) return true;
  const home = homeOf(ctx);
  if (!path.startsWith(home + '/')) return false;
  const first = path.slice(home.length + 1).split('/')[0]!;
  return first.startsWith('.') && !HOME_SCRATCH.has(first);
}

/** Device paths a write to is harmless. */
const SAFE_DEVICES = /^\/dev\/(null|zero|full|random|urandom|stdin|stdout|stderr|tty|ptmx|console|fd\/\d+|pts\/\d+|shm(\/.*)?)$/;

/** A write target that is a device (a disk, a partition, memory) rather than a harmless sink. */
export function isDevicePath(word: string): boolean {
  return word.startsWith('/dev/') && !/^\/dev\/(tcp|udp)\//.test(word) && !SAFE_DEVICES.test(normalizeAbs(word));
}

/** The directory after `cd <args>` (no argument: home; `-` or anything unresolvable: unknown). */
export function changeDir(dir: string, args: string[], ctx: PathContext): string {
  const target = args.find((a) => !a.startsWith('-') || a === '-');
  if (target === undefined) return homeOf(ctx);
  if (target === '-') return `/${UNKNOWN}`;
  return absolutePath(dir, target, ctx);
}

export function describePlace(place: Place): string {
  return {
    root: 'the filesystem root',
    system: 'a system directory',
    data: 'a data directory',
    home: 'the home directory',
    workspace: 'the workspace root',
    ancestor: 'a directory above the workspace',
  }[place];
}
