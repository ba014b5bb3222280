// Programs that write over a file, or into a tree, named by an option or an operand rather than a
// redirection: a download saved over a file (curl -o, wget -O and its log's -o), a copy (rsync, scp),
// an output file (`--output F` of any program, openssl's `-out F`, `-o F` of sort, gpg and the
// compilers), an archive unpacked (tar -x -C, unzip -d, 7z x -oDIR, cpio -i -D DIR). Over a system file or home configuration, or into /, a
// system directory or home, it is the protected_file hit that `> ~/.bashrc` gets.
import type { Scope } from '../expand.ts';
import { classifyTarget, describePlace, isProtectedFile } from '../paths.ts';
import type { VerbHit } from './files.ts';

/** An option's values: `-o FILE`, `-oFILE`, a short bundle ending in it (`-sSLo FILE`), `--output FILE`, `--output=FILE`. */
function optionValues(args: readonly string[], short: string | null, long: string | null): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') break;
    if (long !== null && a === `--${long}`) out.push(args[i + 1] ?? '');
    else if (long !== null && a.startsWith(`--${long}=`)) out.push(a.slice(long.length + 3));
    else if (short !== null && /^-[A-Za-z]/.test(a)) {
      const at = a.indexOf(short, 1);
      if (at > 0) out.push(at === a.length - 1 ? (args[i + 1] ?? '') : a.slice(at + 1));
    }
  }
  return out.filter((v) => v !== '' && v !== '-');
}

const operandsOf = (args: readonly string[]): string[] => args.filter((a) => !a.startsWith('-'));

/** Programs whose `-o FILE` is the file they write. */
const OUTPUT_O = /^(sort|gpg|gpg2|gcc|g\+\+|cc|c\+\+|clang|clang\+\+|go|rustc|pandoc|uglifyjs|esbuild)$/;

/** scp's local destination: its last operand, unless it names a host (`host:path`). */
const scpDestination = (args: readonly string[]): string[] =>
  operandsOf(args)
    .slice(-1)
    .filter((d) => !/^[^/]*:/.test(d));

/** The files a command writes by an option or operand that names them. */
function writtenFiles(program: string, args: readonly string[]): string[] {
  const output = optionValues(args, null, 'output');
  if (program === 'curl') return optionValues(args, 'o', 'output');
  if (program === 'wget') return [...optionValues(args, 'O', 'output-document'), ...optionValues(args, 'o', 'output-file')];
  if (program === 'rsync') return operandsOf(args).slice(-1);
  if (program === 'scp') return scpDestination(args);
  if (program === 'openssl') return [...output, ...args.flatMap((a, i) => (a === '-out' ? [args[i + 1] ?? ''] : []))];
  if (OUTPUT_O.test(program)) return [...output, ...optionValues(args, 'o', null)];
  return output;
}

/** The directories an archive is unpacked into. */
function unpackedInto(program: string, args: readonly string[]): string[] {
  if (program === 'rsync' || program === 'scp') return program === 'rsync' ? operandsOf(args).slice(-1) : scpDestination(args);
  if (program === '7z' || program === '7za' || program === '7zr')
    return /^[xe]$/.test(operandsOf(args)[0] ?? '') ? args.filter((a) => /^-o./.test(a)).map((a) => a.slice(2)) : [];
  if (program === 'cpio') return args.some((a) => a === '--extract' || /^-[A-Za-z]*i/.test(a)) ? optionValues(args, 'D', 'directory') : [];
  if ((program === 'tar' || program === 'unzip') && extracts(program, args))
    return program === 'tar' ? optionValues(args, 'C', 'directory') : optionValues(args, 'd', null);
  return [];
}

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
  const file = writtenFiles(program, args).find((f) => isProtectedFile(scope.dir, f, scope.ctx));
  if (file !== undefined) return { rule: 'destructive.protected_file', detail: `${program} writing ${file}` };
  for (const dir of unpackedInto(program, args)) {
    const place = overPlace(dir, scope);
    if (place) return { rule: 'destructive.protected_file', detail: `${program} writing into ${place} (${dir})` };
  }
  return null;
}
