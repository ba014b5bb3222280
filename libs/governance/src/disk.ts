// What the gate found on disk just before a decision, handed to the pure tier as plain data. The tier
// never touches the filesystem: a gate (TS engine, Python gate) first asks the tier which paths,
// files and command names a call depends on (diskQuestions), looks them up, and decides with the
// answers. Keys are absolute paths as the tier computes them from the words (`..` folded, relative to
// the call's cwd and the `cd`s before), so both SDKs fill and read the same table.

/** paths.ts's UNKNOWN, repeated here because paths.ts imports this module. */
const UNKNOWN = '\u0000';

/** What the gate found at a path a command runs as a script or a program. */
export interface FileFacts {
  /** text: a readable regular file small enough to read whole; binary: anything else it could read;
   * missing: nothing there; unreadable: there, but not readable within bounds (too big, not a regular file, denied). */
  kind: 'text' | 'binary' | 'missing' | 'unreadable';
  text?: string;
  /** The coding agent this file is, known by its content hash or its installed package. */
  agent?: string;
  why?: string;
}

export interface DiskView {
  /** A named path → its real path (symlinks followed, `..` folded), where the two differ. */
  real?: Record<string, string>;
  /** A path a command runs (a script, a program) → what is there. */
  files?: Record<string, FileFacts>;
  /** A bare command name → the absolute path PATH finds it at. A name absent here was not found. */
  commands?: Record<string, string>;
}

/** What the tier would like to know, collected while it decides without the answers. */
export interface DiskAsks {
  paths: Set<string>;
  files: Set<string>;
  commands: Set<string>;
}

export const newAsks = (): DiskAsks => ({ paths: new Set(), files: new Set(), commands: new Set() });

interface DiskContext {
  disk?: DiskView;
  asks?: DiskAsks;
}

/** A path the gate can look up: absolute, with nothing unknown, no glob or unexpanded `$`, no placeholder. */
const lookable = (abs: string): boolean => abs.startsWith('/') && !abs.includes(UNKNOWN) && !abs.includes('\u0001') && !/[*?[$`]/.test(abs);

/** The path as named and, when the gate resolved it elsewhere, its real path: a check holds if it holds for either. */
export function pathForms(abs: string, ctx: DiskContext): string[] {
  // `link/*`, `link/$X`: the part before the first glob or unknown text is what the gate can resolve.
  const segs = abs.split('/');
  const cut = segs.findIndex((s, i) => i > 0 && !lookable(`/${s}`));
  const known = cut === -1 ? abs : segs.slice(0, cut).join('/');
  if (known === '' || known === '/' || !lookable(known)) return [abs];
  ctx.asks?.paths.add(known);
  const real = ctx.disk?.real?.[known];
  if (real === undefined || real === known) return [abs];
  return [abs, real === '/' && cut !== -1 ? `/${segs.slice(cut).join('/')}` : real + abs.slice(known.length)];
}

/** What the gate found at a path a command runs; undefined when no gate looked (the tier alone). */
export function fileFacts(abs: string, ctx: DiskContext): FileFacts | null | undefined {
  if (!lookable(abs)) return undefined;
  ctx.asks?.files.add(abs);
  ctx.asks?.paths.add(abs);
  if (ctx.disk === undefined) return undefined;
  return ctx.disk.files?.[abs] ?? null;
}

/** Where PATH finds a bare command name; undefined when no gate looked. */
export function commandPath(name: string, ctx: DiskContext): string | null | undefined {
  if (name === '' || name.includes('/') || name.includes(UNKNOWN)) return undefined;
  ctx.asks?.commands.add(name);
  if (ctx.disk === undefined) return undefined;
  return ctx.disk.commands?.[name] ?? null;
}
