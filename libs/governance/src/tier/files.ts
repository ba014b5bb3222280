// Verbs that destroy files and disks: recursive removal (rm and the tools that do the same: rimraf,
// trash, shx rm …), moving a protected directory, overwriting or truncating a system file or home
// configuration, chmod/chown -R of the system, find -delete over a protected tree, and disk tools or
// any write to a device. Each takes an expanded argv and the command's redirections.
import type { Scope } from '../expand.ts';
import { classifyTarget, describePlace, isDevicePath, isProtectedFile } from '../paths.ts';
import type { Redirect } from '../shell.ts';
import { isHomeDotEntry } from './harness-config.ts';

export interface VerbHit {
  rule: string;
  detail: string;
}

const hit = (rule: string, detail: string): VerbHit => ({ rule, detail });
const isFlag = (a: string): boolean => a.startsWith('-') && a !== '-';
/** A long option as GNU getopt reads it: any unambiguous prefix of the name (at least `min` letters). */
export const longOpt = (arg: string, name: string, min = 1): boolean => {
  const n = arg.replace(/^--/, '').split('=')[0]!;
  return arg.startsWith('--') && n.length >= min && name.startsWith(n);
};

function operands(args: string[]): { flags: string[]; targets: string[] } {
  const flags: string[] = [];
  const targets: string[] = [];
  let options = true;
  for (const a of args) {
    if (options && a === '--') options = false;
    else if (options && isFlag(a)) flags.push(a);
    else targets.push(a);
  }
  return { flags, targets };
}

function protectedTarget(targets: string[], scope: Scope, rule: string, verb: string): VerbHit | null {
  for (const t of targets) {
    const place = classifyTarget(scope.dir, t, scope.ctx);
    if (place) return hit(rule, `${verb} of ${describePlace(place)} (${t.replace(/\u0000/g, '…')})`);
  }
  return null;
}

function protectedFile(targets: string[], scope: Scope, verb: string): VerbHit | null {
  const t = targets.find((x) => isProtectedFile(scope.dir, x, scope.ctx));
  return t === undefined ? null : hit('destructive.protected_file', `${verb} ${t}`);
}

const REMOVERS = new Set(['rimraf', 'del', 'del-cli', 'trash', 'trash-put', 'trash-cli', 'rm-cli', 'rmrf', 'premove', 'gio', 'wipe']);

function rm(args: string[], scope: Scope, verb: string, alwaysRecursive: boolean): VerbHit | null {
  const { flags, targets } = operands(args);
  const recursive = alwaysRecursive || flags.some((a) => (a.startsWith('--') ? longOpt(a, 'recursive', 1) && a !== '--' : /[rR]/.test(a.slice(1))));
  if (recursive) {
    const dot = targets.find((t) => isHomeDotEntry(scope.dir, t, scope));
    return (
      protectedTarget(targets, scope, 'destructive.rm_recursive', `${verb} -r`) ??
      protectedFile(targets, scope, `${verb} -r`) ??
      (dot === undefined ? null : hit('destructive.protected_file', `${verb} -r ${dot}`))
    );
  }
  return protectedFile(targets, scope, 'rm');
}

/** Recursive deletes, moves and overwrites of protected places and files. */
export function fileVerbHit(argv: string[], redirects: Redirect[], scope: Scope): VerbHit | null {
  const [program = '', ...args] = argv;
  const written = redirects.filter((r) => ['>', '>|', '&>', '<>', '>&'].includes(r.op)).map((r) => r.target);
  const device = redirects
    .filter((r) => r.op.includes('>'))
    .map((r) => r.target)
    .find(isDevicePath);
  if (device) return hit('destructive.device_write', `write to ${device}`);
  const overwritten = protectedFile(written, scope, 'overwriting');
  if (overwritten) return overwritten;
  if (program === 'rm' || program === 'unlink' || program === 'srm') return rm(args, scope, 'rm', false);
  if (program === 'shx' && args[0] === 'rm') return rm(args.slice(1), scope, 'shx rm', false);
  if (REMOVERS.has(program)) return rm(program === 'gio' ? args.slice(1) : args, scope, program, true);
  if (program === 'rmdir' && args.some((a) => a === '-p' || longOpt(a, 'parents'))) return null;
  const { flags, targets } = operands(args);
  if (program === 'mv') {
    const targetDir = flags.find((f) => f === '-t' || f.startsWith('--target-directory') || /^-[a-zA-Z]*t/.test(f));
    const sources = targetDir === undefined ? targets.slice(0, -1) : targetDir.includes('=') || /^-[a-zA-Z]*t./.test(targetDir) ? targets : targets.slice(1);
    // `mv important.db /dev/null`: what is moved onto a device is gone (and the device with it).
    if (targetDir === undefined && targets.length >= 2 && /^\/dev\/(?!shm(\/|$))/.test(targets[targets.length - 1]!))
      return hit('destructive.protected_file', `mv onto ${targets[targets.length - 1]}`);
    return protectedTarget(sources, scope, 'destructive.move_protected', 'mv') ?? protectedFile(targets, scope, 'mv');
  }
  // Editors run on a file (`ed -s f <<< …`, `ex -sc '%d|x' f`, `vim -es -c wq f`), gawk's in-place mode and patch write it.
  const inPlace = /^g?awk$/.test(program) && args.some((a, i) => a === 'inplace' && args[i - 1] === '-i');
  if (/^(ed|red|ex|vi|vim|nvim|nano|emacs|patch)$/.test(program) || inPlace) return protectedFile(targets, scope, program);
  if (program === 'truncate' || program === 'shred' || program === 'install' || program === 'fallocate') {
    if (program === 'shred' && targets.some(isDevicePath)) return hit('destructive.device_write', 'shred of a device');
    const sizeArgs = new Set(
      flags.flatMap((f) => (/^(-s|--size|-r|--reference)$/.test(f) ? [args[args.indexOf(f) + 1]] : [])).filter((x): x is string => x !== undefined),
    );
    return protectedFile(
      targets.filter((t) => !sizeArgs.has(t)),
      scope,
      program,
    );
  }
  if (['cp', 'tee', 'sponge', 'dd', 'ln'].includes(program)) {
    const dest =
      program === 'dd'
        ? args.filter((a) => a.startsWith('of=')).map((a) => a.slice(3))
        : program === 'tee' || program === 'sponge'
          ? flags.some((f) => /^-a|--append/.test(f))
            ? []
            : targets
          : targets.slice(-1);
    if (dest.some(isDevicePath)) return hit(program === 'dd' ? 'destructive.dd_device' : 'destructive.device_write', `${program} to a device`);
    return program === 'ln' && !flags.some((f) => /f/.test(f)) ? null : protectedFile(dest, scope, program);
  }
  if (/^(perl|ruby)$/.test(program) && flags.some((f) => /^-[a-zA-Z]*i/.test(f))) return protectedFile(scriptFiles(args), scope, `${program} -i`);
  if (program === 'sed' && flags.some((f) => /^-[a-zA-Z]*i|^--in-place/.test(f))) return protectedFile(targets.slice(1), scope, 'sed -i');
  // chflags only when it makes the tree immutable or append-only (`chflags -R uchg ~`), not `nohidden`.
  // chattr only when it freezes (`+i`, `+a`); setfacl's targets follow its ACL options' values.
  const freezes =
    (program !== 'chflags' || /^(u|s)?(chg|appnd|change|immutable|append)/.test(targets[0] ?? '')) &&
    (program !== 'chattr' || /^\+[a-zA-Z]*[ia]/.test(targets[0] ?? ''));
  if (
    ['chmod', 'chown', 'chgrp', 'chflags', 'chattr', 'setfacl'].includes(program) &&
    freezes &&
    flags.some((a) => longOpt(a, 'recursive', 3) || /^-[a-zA-Z]*R/.test(a))
  ) {
    const paths = program === 'setfacl' ? args.filter((a, i) => !a.startsWith('-') && !/^-[a-zA-Z]*[mxMX]$/.test(args[i - 1] ?? '')) : targets.slice(1);
    const h = protectedTarget(paths, scope, 'destructive.chmod_chown_recursive', `${program} -R`);
    return h && !/workspace|above|data directory/.test(h.detail) ? h : null;
  }
  return diskHit(program, args);
}

/** The files `perl -i`/`ruby -i` edit: the operands after the code (`-e CODE`, `-pie CODE`, or the script file's name). */
function scriptFiles(args: readonly string[]): string[] {
  const files: string[] = [];
  let code = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') files.push(...args.slice(i + 1));
    if (a === '--') break;
    if (/^-[a-zA-Z]*[eE]$/.test(a)) i++;
    if (/^-[a-zA-Z]*[eE]/.test(a)) code = true;
    else if (!a.startsWith('-')) files.push(a);
  }
  return code ? files : files.slice(1);
}

const MKFS = /^(mkfs(\..+)?|mke2fs|mkswap|wipefs|mkntfs|mkdosfs|mkfs_.+|mkexfatfs)$/;
const DISK_TOOLS =
  /^(sgdisk|gdisk|fdisk|sfdisk|cfdisk|parted|blkdiscard|badblocks|cryptsetup|hdparm|nvme|sg_format|zpool|lvremove|vgremove|pvremove|mdadm|dmsetup|losetup|flashrom)$/;

function diskHit(program: string, args: string[]): VerbHit | null {
  const devices = args.filter((a) => isDevicePath(a.replace(/^[a-z]+=/, '')));
  if (MKFS.test(program) && devices.length > 0) return hit('destructive.mkfs', `${program} on a device`);
  if (program === 'zpool' && args[0] === 'destroy') return hit('destructive.disk_tool', 'zpool destroy');
  // Volumes and datasets go by name, not by device: `vgremove -f vg0`, `zfs destroy -r tank/data`.
  const named = args.some((a) => !a.startsWith('-'));
  if ((/^(lvremove|vgremove|pvremove)$/.test(program) && named) || (program === 'zfs' && args[0] === 'destroy'))
    return hit('destructive.disk_tool', `${program} ${args.filter((a) => !a.startsWith('-')).join(' ')}`);
  if (program === 'btrfs' && /^su/.test(args[0] ?? '') && /^(delete|del)$/.test(args[1] ?? '')) return hit('destructive.disk_tool', 'btrfs subvolume delete');
  if (!DISK_TOOLS.test(program) || devices.length === 0) return null;
  if (
    ['fdisk', 'sfdisk', 'parted', 'gdisk'].includes(program) &&
    args.some((a) => /^(-l|--list|-s|--show|print)$/.test(a)) &&
    !args.some((a) => /^(mklabel|rm|mkpart|resizepart)$/.test(a))
  )
    return null;
  if (program === 'hdparm' && !args.some((a) => /security-erase|trim-sector|write-sector|--dco/.test(a))) return null;
  return hit('destructive.disk_tool', `${program} ${devices[0]}`);
}

/** `find ROOTS … -delete` (or -exec rm) over a protected tree. */
export function findDeleteHit(args: string[], deletes: boolean, scope: Scope): VerbHit | null {
  const stop = args.findIndex((a) => /^[-(!]/.test(a) && !/^-[HLP]$/.test(a));
  const roots = (stop === -1 ? args : args.slice(0, stop)).filter((a) => !/^-[HLP]$/.test(a));
  if (!deletes) return null;
  for (const r of roots) {
    const place = classifyTarget(scope.dir, r, scope.ctx);
    if (place && place !== 'workspace') return hit('destructive.find_delete', `find ${r} deleting`);
    if (isHomeDotEntry(scope.dir, r, scope)) return hit('destructive.protected_file', `find ${r} deleting`);
  }
  // `find . -name .git … -exec rm -rf {} +`: every repository's history under the roots.
  const named = args.flatMap((a, i) => (/^-(i?name|i?path|wholename)$/.test(a) ? [args[i + 1] ?? ''] : []));
  if (named.some((n) => /(^|\/)\.git\/?$/.test(n))) return hit('destructive.git_history', 'find deleting .git directories');
  // -mindepth 1 only spares the root itself, and a negated test (`! -name .`, `-not -path './.git*'`)
  // spares only what it names: everything else still goes.
  // `-type f` or `-type d` narrows nothing (every file, every directory), nor does `-name '*'`.
  const filtered = args.some(
    (a, i) =>
      ((/^-(i?name|i?path|i?regex|newer|mtime|mmin|size|wholename|empty|user|perm)$/.test(a) && !/^(\*|\.\*)$/.test(args[i + 1] ?? '')) ||
        (a === '-type' && !/^[fd]$/.test(args[i + 1] ?? ''))) &&
      !/^(!|-not)$/.test(args[i - 1] ?? ''),
  );
  const inWorkspace = roots.length === 0 ? 'workspace' : roots.map((r) => classifyTarget(scope.dir, r, scope.ctx)).find((p) => p === 'workspace');
  return inWorkspace && !filtered ? hit('destructive.find_delete', 'find deleting the whole workspace') : null;
}
