// Programs that write over a file, or into a tree, named by an option or an operand rather than a
// redirection: a download saved over a file (curl -o, wget -O and its log's -o), a copy (rsync), an
// archive unpacked (tar -x -C, unzip -d). Over a system file or home configuration, or into /, a
// system directory or home, it is the protected_file hit that `> ~/.bashrc` gets.
import type { Scope } from '../expand.ts';
import { classifyTarget, describePlace, isProtectedFile } from '../paths.ts';
import type { VerbHit } from './files.ts';

/** An option's values: `-o FILE`, `-oFILE`, a short bundle ending in it (`-sSLo FILE`), `--output FILE`, `--output=FILE`. */
function optionValues(args: readonly string[], short: string, long: string | null): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') break;
    if (long !== null && a === `--${long}`) out.push(args[i + 1] ?? '');
    else if (long !== null && a.startsWith(`--${long}=`)) out.push(a.slice(long.length + 3));
    else if (/^-[A-Za-z]/.test(a)) {
      const at = a.indexOf(short, 1);
      if (at > 0) out.push(at === a.length - 1 ? (args[i + 1] ?? '') : a.slice(at + 1));
    }
  }
  return out.filter((v) => v !== '' && v !== '-');
}

const operandsOf = (args: readonly string[]): string[] => args.filter((a) => !a.startsWith('-'));

function extracts(program: string, args: readonly string[]): boolean {
  if (program === 'unzip' || program === 'bsdtar' || program === '7z') return true;
  const first = args[0] ?? '';
  return args.includes('--extract') || args.includes('--get') || /^[A-Za-z]*x/.test(first) || args.some((a) => /^-[A-Za-z]*x/.test(a));
}

function overPlace(path: string, scope: Scope): string | null {
  const place = classifyTarget(scope.dir, path, scope.ctx);
  return place === 'root' || place === 'system' || place === 'home' ? describePlace(place) : null;
}

/** The protected file or place a download, a copy or an unpacked archive would write over, or null. */
export function writerHit(argv: readonly string[], scope: Scope): VerbHit | null {
  const [program = '', ...args] = argv;
  const files =
    program === 'curl'
      ? optionValues(args, 'o', 'output')
      : program === 'wget'
        ? [...optionValues(args, 'O', 'output-document'), ...optionValues(args, 'o', 'output-file')]
        : program === 'rsync'
          ? operandsOf(args).slice(-1)
          : [];
  const file = files.find((f) => isProtectedFile(scope.dir, f, scope.ctx));
  if (file !== undefined) return { rule: 'destructive.protected_file', detail: `${program} writing ${file}` };
  const into =
    program === 'rsync'
      ? operandsOf(args).slice(-1)
      : (program === 'tar' || program === 'unzip') && extracts(program, args)
        ? program === 'tar'
          ? optionValues(args, 'C', 'directory')
          : optionValues(args, 'd', null)
        : [];
  for (const dir of into) {
    const place = overPlace(dir, scope);
    if (place) return { rule: 'destructive.protected_file', detail: `${program} writing into ${place} (${dir})` };
  }
  return null;
}
