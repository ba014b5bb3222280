// Removing what the machine runs on through its package manager: a package every other program or the
// machine's logins rest on (`apt-get remove --purge python3`, `rpm -e --nodeps glibc`, `yum remove
// kernel`, `apt purge openssh-server`), any package with its dependents' checks switched off
// (`--nodeps`, `--force-depends`, `pacman -Rdd`), and every installed package at once (`pip freeze |
// xargs pip uninstall -y`, `brew uninstall $(brew list)`, `npm uninstall -g $(npm ls -g …)`). A
// package the line cannot name is the worst one, and pip's `--break-system-packages` takes them from the
// system's own Python. Removing one of the project's own dependencies
// (`npm uninstall left-pad`, `pip uninstall -y requests`, `apt-get remove nano`) stays allowed.
import { UNKNOWN } from '../paths.ts';
import type { VerbHit } from './files.ts';

/** Packages the machine, its shells, its package manager or its logins cannot run without. */
const CRITICAL =
  /^(libc6|libc-bin|glibc(-common)?|musl|coreutils|bash|dash|busybox|systemd(-sysv)?|init|sysvinit-core|sudo|apt|dpkg|rpm|yum|dnf|apk-tools|pacman|openssh(-server)?|ssh|python3?(-minimal)?|perl(-base)?|linux(-image.*)?|kernel(-core|-modules(-core)?)?|grub.*|util-linux|login|passwd|shadow(-utils)?|base-files|base-passwd|libpam0g|libpam-modules(-bin)?|libpam-runtime|pam|tar|gzip|sed|grep|findutils|mount|e2fsprogs|libstdc\+\+6|libgcc-s1|zlib1g|ca-certificates|openssl|libssl\d[\d.]*)$/;
/** Options that remove a package whatever depends on it. */
const NO_DEPENDENCY_CHECK = /^(--nodeps|--force-depends|--force-all|--force-remove-essential|--allow-remove-essential|-R[a-z]*d[a-z]*d[a-z]*)$/;

/** The package names a removal names, or null when the command removes nothing. */
function removed(program: string, args: readonly string[]): string[] | null {
  const words = args.filter((a) => !a.startsWith('-'));
  const [sub = ''] = words;
  if (/^(apt|apt-get|aptitude)$/.test(program)) return /^(remove|purge)$/.test(sub) ? words.slice(1) : null;
  if (/^(yum|dnf|microdnf|tdnf)$/.test(program)) return /^(remove|erase)$/.test(sub) ? words.slice(1) : null;
  if (program === 'zypper') return /^(remove|rm)$/.test(sub) ? words.slice(1) : null;
  if (program === 'apk' || program === 'snap') return sub === (program === 'apk' ? 'del' : 'remove') ? words.slice(1) : null;
  if (program === 'dpkg') return args.some((a) => /^(-[a-zA-Z]*[rP][a-zA-Z]*|--remove|--purge)$/.test(a)) ? words : null;
  if (program === 'rpm') return args.some((a) => /^(-[a-zA-Z]*e[a-zA-Z]*|--erase)$/.test(a)) ? words : null;
  if (program === 'pacman') return args.some((a) => /^(-R[a-zA-Z]*|--remove)$/.test(a)) ? words : null;
  return null;
}

/** The packages a language's or a user's package manager removes from the whole machine, or null. */
function removedGlobally(program: string, args: readonly string[]): string[] | null {
  const words = args.filter((a) => !a.startsWith('-'));
  if (/^pip3?(\.\d+)?$/.test(program) && words[0] === 'uninstall') {
    // `-r FILE`: a listing the line cannot show (`-r <(pip freeze)`) is every package.
    const lists = args.flatMap((a, i) => (/^(-r|--requirement)$/.test(args[i - 1] ?? '') ? [a] : []));
    return [...words.slice(1).filter((w) => !lists.includes(w)), ...lists.filter((l) => l.startsWith('<(') || l.includes(UNKNOWN))];
  }
  const global = args.some((a) => a === '-g' || a === '--global' || a === '--location=global');
  if (/^(npm|pnpm)$/.test(program) && global && /^(uninstall|remove|rm|r|un|unlink)$/.test(words[0] ?? '')) return words.slice(1);
  if (program === 'brew' && /^(uninstall|remove|rm)$/.test(words[0] ?? '')) return words.slice(1);
  if (program === 'gem' && words[0] === 'uninstall') return args.some((a) => a === '-a' || a === '--all') && words.length === 1 ? [UNKNOWN] : words.slice(1);
  return null;
}

/** A package removal that takes the machine's own programs, or all of them; null otherwise. */
export function packageRemovalHit(argv: readonly string[]): VerbHit | null {
  const [name = '', ...rest] = argv;
  // `python3 -m pip uninstall …` is pip.
  const [program, args] = /^python[\d.]*$/.test(name) && rest[0] === '-m' && /^pip3?$/.test(rest[1] ?? '') ? ['pip', rest.slice(2)] : [name, rest];
  const system = removed(program, args);
  const packages = system ?? removedGlobally(program, args);
  if (packages === null) return null;
  const hit = (detail: string): VerbHit => ({ rule: 'destructive.system_disruption', detail: `${program}: ${detail}` });
  if (system !== null && packages.length > 0 && args.some((a) => NO_DEPENDENCY_CHECK.test(a))) return hit('removing a package whatever depends on it');
  // pip's override of the system's own guard: the packages go from the Python the machine's programs import.
  if (system === null && args.includes('--break-system-packages')) return hit("removing packages of the system's Python (--break-system-packages)");
  // npm taking itself away (`npm uninstall -g npm`); pip reinstalls itself (`python -m ensurepip`).
  const itself = /^(npm|pnpm)$/.test(program) ? packages.find((p) => p.replace(/(?<=.)@.*$/, '') === program) : undefined;
  if (itself !== undefined) return hit(`removing ${itself}, the package manager itself`);
  const worst = packages.find((p) => p.includes(UNKNOWN) || p.startsWith('<('));
  if (worst !== undefined) return hit('removing packages the command line cannot name: every installed package, at worst');
  const critical = packages.map((p) => p.replace(/[:=].*$/, '')).find((p) => CRITICAL.test(p) || (/[*?]/.test(p) && globReachesCritical(p)));
  return critical === undefined ? null : hit(`removing ${critical}, which the machine runs on`);
}

/** Whether a package glob (`python3*`, `linux-image-*`, `*`) takes a package the machine runs on. */
function globReachesCritical(glob: string): boolean {
  const prefix = glob.slice(0, glob.search(/[*?]/));
  return [
    'libc6',
    'glibc',
    'coreutils',
    'bash',
    'systemd',
    'sudo',
    'apt',
    'dpkg',
    'rpm',
    'openssh-server',
    'python3',
    'perl-base',
    'linux-image',
    'kernel',
  ].some((p) => p.startsWith(prefix));
}
