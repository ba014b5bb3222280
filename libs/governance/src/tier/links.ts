// A link the agent makes towards a protected place is a write to that place: once `rc` points at
// ~/.bashrc, every later `echo … > rc` or Write of `rc` lands there. So `ln -s ~/.bashrc rc`,
// `ln -sf /etc x`, `ln ~/.bashrc h` (a hard link), `cp -s`/`cp -l`/`link` towards /, a system
// directory, home, a system file or home configuration is the protected_file hit that writing the
// file itself gets. Links to programs and libraries (/usr, /opt, /bin …) stay allowed: writing
// through them needs root, and making them is everyday work (`ln -s /usr/bin/python3 .venv/bin/python`).
// A symbolic link made earlier in the line is remembered (noteLink), so a path through it is judged
// as the place it reaches: `ln -s /work/proj/.git g && rm -rf g/objects` removes the history.
import type { Scope } from '../expand.ts';
import { absolutePath, classifyTarget, describePlace, isProtectedFile, UNKNOWN } from '../paths.ts';
import type { VerbHit } from './files.ts';

/** Trees of programs and libraries: root-owned, read-only to the agent, and linked to every day. */
const PROGRAM_TREES = /^\/(usr|bin|sbin|lib|lib32|lib64|libx32|opt)(\/|$)/;

interface LinkCommand {
  sources: string[];
  /** Directories a relative symbolic source is read from, besides the cwd: the link's own directory. */
  bases: string[];
}

/** Options taking a value, per program (`ln -S SUFFIX`, `cp --suffix=…`). */
const VALUE_OPTS = /^(-S|--suffix|-t|--target-directory)$/;

function linkCommand(program: string, args: readonly string[]): LinkCommand | null {
  const operands: string[] = [];
  let targetDir: string | null = null;
  let links = program === 'ln' || program === 'link';
  let options = true;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (options && a === '--') options = false;
    else if (options && VALUE_OPTS.test(a)) {
      if (a === '-t' || a === '--target-directory') targetDir = args[i + 1] ?? '';
      i++;
    } else if (options && a.startsWith('--target-directory=')) targetDir = a.slice(19);
    else if (options && a.startsWith('--')) links ||= program === 'cp' && /^--(symbolic-link|link)$/.test(a);
    else if (options && a.startsWith('-') && a !== '-') {
      if (program === 'cp' && /^-[A-Za-z]*[sl]/.test(a)) links = true;
      const t = a.indexOf('t');
      if (program !== 'link' && t > 0) targetDir = t === a.length - 1 ? (args[++i] ?? '') : a.slice(t + 1);
    } else operands.push(a);
  }
  if (!links || operands.length === 0) return null;
  if (targetDir !== null) return { sources: operands, bases: [targetDir] };
  if (operands.length === 1) return { sources: operands, bases: [] };
  const dest = operands[operands.length - 1]!;
  // The link is `dest` itself, or an entry in `dest` when it is a directory: either can be the base.
  return { sources: operands.slice(0, -1), bases: [dest, dest.replace(/\/+[^/]*\/*$/, '') || '.'] };
}

function protectedSource(source: string, dir: string, scope: Scope): string | null {
  const place = classifyTarget(dir, source, scope.ctx);
  if (place === 'root' || place === 'system' || place === 'home') return describePlace(place);
  if (!isProtectedFile(dir, source, scope.ctx)) return null;
  return PROGRAM_TREES.test(absolutePath(dir, source, scope.ctx)) ? null : source;
}

/** A link made towards a protected place or file, or null. */
export function linkHit(argv: readonly string[], scope: Scope): VerbHit | null {
  const [program = '', ...args] = argv;
  if (program !== 'ln' && program !== 'link' && program !== 'cp') return null;
  const cmd = linkCommand(program, args);
  if (!cmd) return null;
  const dirs = [scope.dir, ...cmd.bases.map((b) => absolutePath(scope.dir, b, scope.ctx))];
  for (const source of cmd.sources) {
    for (const dir of source.startsWith('/') || source.startsWith('~') ? [scope.dir] : dirs) {
      const what = protectedSource(source, dir, scope);
      if (what !== null) return { rule: 'destructive.protected_file', detail: `${program} making a link to ${what.replace(/\u0000/g, '…')}` };
    }
  }
  return null;
}

const basename = (path: string): string => path.replace(/\/+$/, '').replace(/^.*\//, '');

/**
 * Remember the symbolic links `ln -s` makes, so later paths through them reach their targets (`cp -rs`
 * makes real directories holding links to files: nothing under them is reached through a link).
 */
export function noteLink(argv: readonly string[], scope: Scope): void {
  const [program = '', ...args] = argv;
  const symbolic = program === 'ln' && args.some((a) => a === '--symbolic' || /^-[A-Za-z]*s/.test(a));
  const cmd = symbolic ? linkCommand(program, args) : null;
  if (!cmd || scope.ctx.links === undefined) return;
  const [base] = cmd.bases;
  // Read before any is remembered: one reading of DEST must not pass through the other.
  const made: [string, string][] = [];
  for (const source of cmd.sources) {
    // The link: `ln -s SRC` makes ./SRC's name, `-t DIR` or several sources make DIR/its name, and
    // `ln -s SRC DEST` makes DEST, or DEST/SRC's name when DEST is a directory (either, unless `DEST/`).
    const inDir = base === undefined ? [basename(source)] : [`${base}/${basename(source)}`];
    const names = cmd.bases.length === 2 && cmd.sources.length === 1 && !base!.endsWith('/') ? [base!, ...inDir] : inDir;
    for (const name of names) {
      const link = absolutePath(scope.dir, name, scope.ctx);
      const from = source.startsWith('/') || source.startsWith('~') ? scope.dir : link.replace(/\/[^/]*$/, '') || '/';
      const target = absolutePath(from, source, scope.ctx);
      if (!link.includes(UNKNOWN) && !target.includes(UNKNOWN)) made.push([link, target]);
    }
  }
  for (const [link, target] of made) scope.ctx.links.set(link, target);
}
