// Where a path argument points, as far as a command line can tell: the filesystem root, a system
// directory, the home directory, the workspace root or one of its ancestors — the places whose
// recursive removal the destructive tier refuses. `cd` is tracked so `cd / && rm -rf *` is seen.

export type Place = 'root' | 'system' | 'home' | 'workspace' | 'ancestor';

/** A directory as the command line knows it: absolute, relative to home or to the workspace, or unknown. */
export interface Dir {
  base: 'abs' | 'home' | 'ws' | 'unknown';
  /** Path segments below the base; leading '..' means above it. */
  segs: string[];
}

export interface PathContext {
  /** The workspace root (the call's cwd) when known. */
  cwd?: string;
  home?: string;
}

const SYSTEM_TOP = new Set(
  'bin boot dev etc home lib lib32 lib64 libx32 opt proc root sbin srv sys usr var mnt media snap System Users Applications Library private Volumes'.split(' '),
);
const SYSTEM_SECOND = new Set('usr/bin usr/lib usr/lib64 usr/local usr/sbin usr/share var/lib System/Library private/etc private/var'.split(' '));

export function splitPath(path: string): string[] {
  return path.split('/').filter((s) => s !== '' && s !== '.');
}

function join(dir: Dir, rel: string[]): Dir {
  const segs = [...dir.segs];
  for (const s of rel) {
    if (s !== '..') segs.push(s);
    else if (segs.length > 0 && segs[segs.length - 1] !== '..') segs.pop();
    else if (dir.base !== 'abs') segs.push('..'); // above an absolute root stays at the root
  }
  return { base: dir.base, segs };
}

export function initialDir(ctx: PathContext): Dir {
  return ctx.cwd?.startsWith('/') ? { base: 'abs', segs: join({ base: 'abs', segs: [] }, splitPath(ctx.cwd)).segs } : { base: 'ws', segs: [] };
}

const PWD_PREFIX = /^(\$PWD|\$\{PWD\}|\$\(pwd\)|`pwd`)(?=\/|$)/;
const HOME_PREFIX = /^(~[A-Za-z0-9_.-]*|\$HOME|\$\{HOME\})(?=\/|$)/;

/** Resolve a path word against the current directory. */
export function resolvePath(dir: Dir, word: string): Dir {
  if (word.startsWith('/')) return join({ base: 'abs', segs: [] }, splitPath(word));
  const home = HOME_PREFIX.exec(word);
  if (home) return join({ base: 'home', segs: [] }, splitPath(word.slice(home[0].length)));
  const pwd = PWD_PREFIX.exec(word);
  if (pwd) return join(dir, splitPath(word.slice(pwd[0].length)));
  if (word.startsWith('$') || word.startsWith('`')) return { base: 'unknown', segs: [] };
  return join(dir, splitPath(word));
}

function isPrefix(prefix: string[], of: string[]): boolean {
  return prefix.length <= of.length && prefix.every((s, i) => of[i] === s);
}

/** Which protected place a resolved directory is, or null for anywhere else. */
export function classifyDir(dir: Dir, ctx: PathContext): Place | null {
  const { base, segs } = dir;
  if (base === 'unknown') return null;
  if (base === 'home') return segs.length === 0 ? 'home' : segs[0] === '..' ? 'ancestor' : null;
  if (base === 'ws') return segs.every((s) => s === '..') ? (segs.length === 0 ? 'workspace' : 'ancestor') : null;
  if (segs.length === 0) return 'root';
  if (ctx.home?.startsWith('/') && segs.join('/') === splitPath(ctx.home).join('/')) return 'home';
  if (ctx.cwd?.startsWith('/')) {
    const ws = splitPath(ctx.cwd);
    if (segs.length === ws.length && isPrefix(segs, ws)) return 'workspace';
    if (segs.length < ws.length && isPrefix(segs, ws)) return 'ancestor';
  }
  if (segs.length === 1 && SYSTEM_TOP.has(segs[0]!)) return 'system';
  if (segs.length === 2 && SYSTEM_SECOND.has(segs.join('/'))) return 'system';
  return null;
}

/**
 * Classify a path argument. A trailing `*` or `.*` (everything in a directory) counts as the
 * directory itself; any other glob in the last segment names only some files and is not protected.
 */
export function classifyTarget(dir: Dir, word: string, ctx: PathContext): Place | null {
  const trimmed = word.length > 1 ? word.replace(/\/+$/, '') || '/' : word;
  const lastSlash = trimmed.lastIndexOf('/');
  const last = trimmed.slice(lastSlash + 1);
  if (last === '*' || last === '.*' || last === '{*,.*}' || last === '{.*,*}') {
    const parent = lastSlash === -1 ? '.' : trimmed.slice(0, lastSlash) || '/';
    return classifyDir(resolvePath(dir, parent), ctx);
  }
  if (/[*?[]/.test(last)) return null;
  return classifyDir(resolvePath(dir, trimmed), ctx);
}

/** The directory after `cd <arg>` (no argument: home; `-` or a variable: unknown). */
export function changeDir(dir: Dir, args: string[]): Dir {
  const target = args.find((a) => !a.startsWith('-') || a === '-');
  if (target === undefined) return { base: 'home', segs: [] };
  if (target === '-') return { base: 'unknown', segs: [] };
  return resolvePath(dir, target);
}
