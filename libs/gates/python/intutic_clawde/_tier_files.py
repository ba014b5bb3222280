"""Verbs that destroy files and disks (a port of libs/governance/src/tier/files.ts).

Recursive removal (rm and the tools that do the same: rimraf, trash, shx rm …), moving a protected
directory, overwriting or truncating a system file or home configuration, chmod/chown -R of the
system, find -delete over a protected tree, and disk tools or any write to a device. Each takes an
expanded argv and the command's redirections. A hit is a (rule, detail) pair.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Sequence, Tuple

from ._jsre import js_re
from ._paths import UNKNOWN, classify_target, describe_place, is_device_path, is_protected_file
from ._shell import Redirect
from ._tier_harness_config import is_home_dot_entry

if TYPE_CHECKING:
    from ._expand import Scope

VerbHit = Tuple[str, str]


def _is_flag(a: str) -> bool:
    return a.startswith("-") and a != "-"


def long_opt(arg: str, name: str, min_len: int = 1) -> bool:
    """A long option as GNU getopt reads it: any unambiguous prefix of the name (at least `min_len` letters)."""
    n = (arg[2:] if arg.startswith("--") else arg).split("=")[0]
    return arg.startswith("--") and len(n) >= min_len and name.startswith(n)


def _operands(args: Sequence[str]) -> Tuple[List[str], List[str]]:
    flags: List[str] = []
    targets: List[str] = []
    options = True
    for a in args:
        if options and a == "--":
            options = False
        elif options and _is_flag(a):
            flags.append(a)
        else:
            targets.append(a)
    return flags, targets


def _protected_target(targets: Sequence[str], scope: "Scope", rule: str, verb: str) -> Optional[VerbHit]:
    for t in targets:
        place = classify_target(scope.dir, t, scope.ctx)
        if place:
            return (rule, f"{verb} of {describe_place(place)} ({t.replace(UNKNOWN, '…')})")
    return None


def _protected_file(targets: Sequence[str], scope: "Scope", verb: str) -> Optional[VerbHit]:
    t = next((x for x in targets if is_protected_file(scope.dir, x, scope.ctx)), None)
    return None if t is None else ("destructive.protected_file", f"{verb} {t}")


_REMOVERS = {"rimraf", "del", "del-cli", "trash", "trash-put", "trash-cli", "rm-cli", "rmrf", "premove", "gio", "wipe"}
_R_FLAG = js_re(r"[rR]")


def _rm(args: Sequence[str], scope: "Scope", verb: str, always_recursive: bool) -> Optional[VerbHit]:
    flags, targets = _operands(args)
    recursive = always_recursive or any((long_opt(a, "recursive", 1) and a != "--") if a.startswith("--") else _R_FLAG.search(a[1:]) is not None for a in flags)
    if recursive:
        dot = next((t for t in targets if is_home_dot_entry(scope.dir, t, scope)), None)
        return (
            _protected_target(targets, scope, "destructive.rm_recursive", f"{verb} -r")
            or _protected_file(targets, scope, f"{verb} -r")
            or (None if dot is None else ("destructive.protected_file", f"{verb} -r {dot}"))
        )
    return _protected_file(targets, scope, "rm")


_MV_T = js_re(r"^-[a-zA-Z]*t")
_MV_T_ATTACHED = js_re(r"^-[a-zA-Z]*t.")
_SIZE_OPT = js_re(r"^(-s|--size|-r|--reference)$")
_TEE_APPEND = js_re(r"^-a|--append")
_F = js_re(r"f")
_PERL_I = js_re(r"^-[a-zA-Z]*i")
_SED_I = js_re(r"^-[a-zA-Z]*i|^--in-place")
_CHMOD_R = js_re(r"^-[a-zA-Z]*R")
_PERL_RUBY = js_re(r"^(perl|ruby)$")
_NOT_OUTSIDE = js_re(r"workspace|above|data directory")
_FREEZES = js_re(r"^(u|s)?(chg|appnd|change|immutable|append)")
_ONTO_DEVICE = js_re(r"^\/dev\/(?!shm(\/|$))")


_CODE_OPTION = js_re(r"^-[a-zA-Z]*[eE]")
_CODE_OPTION_ALONE = js_re(r"^-[a-zA-Z]*[eE]$")


def _script_files(args: Sequence[str]) -> List[str]:
    """The files `perl -i`/`ruby -i` edit: the operands after the code (`-e CODE`, `-pie CODE`, or the script file's name)."""
    files: List[str] = []
    code = False
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            files.extend(args[i + 1 :])
            break
        if _CODE_OPTION.search(a):
            code = True
            if _CODE_OPTION_ALONE.search(a):
                i += 1
        elif not a.startswith("-"):
            files.append(a)
        i += 1
    return files if code else files[1:]


def file_verb_hit(argv: Sequence[str], redirects: Sequence[Redirect], scope: "Scope") -> Optional[VerbHit]:
    """Recursive deletes, moves and overwrites of protected places and files."""
    program = argv[0] if argv else ""
    args = list(argv[1:])
    written = [r.target for r in redirects if r.op in (">", ">|", "&>", "<>", ">&")]
    device = next((r.target for r in redirects if ">" in r.op and is_device_path(r.target)), None)
    if device:
        return ("destructive.device_write", f"write to {device}")
    overwritten = _protected_file(written, scope, "overwriting")
    if overwritten:
        return overwritten
    if program in ("rm", "unlink", "srm"):
        return _rm(args, scope, "rm", False)
    if program == "shx" and args[:1] == ["rm"]:
        return _rm(args[1:], scope, "shx rm", False)
    if program in _REMOVERS:
        return _rm(args[1:] if program == "gio" else args, scope, program, True)
    if program == "rmdir" and any(a == "-p" or long_opt(a, "parents") for a in args):
        return None
    flags, targets = _operands(args)
    if program == "mv":
        target_dir = next((f for f in flags if f == "-t" or f.startswith("--target-directory") or _MV_T.search(f)), None)
        if target_dir is None:
            sources = targets[:-1]
        else:
            sources = targets if "=" in target_dir or _MV_T_ATTACHED.search(target_dir) else targets[1:]
        # `mv important.db /dev/null`: what is moved onto a device is gone (and the device with it).
        if target_dir is None and len(targets) >= 2 and _ONTO_DEVICE.search(targets[-1]):
            return ("destructive.protected_file", f"mv onto {targets[-1]}")
        return _protected_target(sources, scope, "destructive.move_protected", "mv") or _protected_file(targets, scope, "mv")
    # Editors run on a file (`ed -s f <<< …`, `ex -sc '%d|x' f`, `vim -es -c wq f`), gawk's in-place mode and patch write it.
    in_place = program in ("awk", "gawk") and any(a == "inplace" and i > 0 and args[i - 1] == "-i" for i, a in enumerate(args))
    if program in ("ed", "red", "ex", "vi", "vim", "nvim", "nano", "emacs", "patch") or in_place:
        return _protected_file(targets, scope, program)
    if program in ("truncate", "shred", "install", "fallocate"):
        if program == "shred" and any(is_device_path(t) for t in targets):
            return ("destructive.device_write", "shred of a device")
        size_args = {args[args.index(f) + 1] for f in flags if _SIZE_OPT.search(f) and args.index(f) + 1 < len(args)}
        return _protected_file([t for t in targets if t not in size_args], scope, program)
    if program in ("cp", "tee", "sponge", "dd", "ln"):
        if program == "dd":
            dest = [a[3:] for a in args if a.startswith("of=")]
        elif program in ("tee", "sponge"):
            dest = [] if any(_TEE_APPEND.search(f) for f in flags) else targets
        else:
            dest = targets[-1:]
        if any(is_device_path(d) for d in dest):
            return ("destructive.dd_device" if program == "dd" else "destructive.device_write", f"{program} to a device")
        return None if program == "ln" and not any(_F.search(f) for f in flags) else _protected_file(dest, scope, program)
    if _PERL_RUBY.search(program) and any(_PERL_I.search(f) for f in flags):
        return _protected_file(_script_files(args), scope, f"{program} -i")
    if program == "sed" and any(_SED_I.search(f) for f in flags):
        return _protected_file(targets[1:], scope, "sed -i")
    # chflags only when it makes the tree immutable or append-only (`chflags -R uchg ~`), not `nohidden`;
    # chattr only when it freezes (`+i`, `+a`); setfacl's targets follow its ACL options' values.
    first = targets[0] if targets else ""
    freezes = (program != "chflags" or _FREEZES.search(first) is not None) and (program != "chattr" or _CHATTR_FREEZES.search(first) is not None)
    recursive = any(long_opt(a, "recursive", 3) or _CHMOD_R.search(a) for a in flags)
    if program in ("chmod", "chown", "chgrp", "chflags", "chattr", "setfacl") and freezes and recursive:
        paths = [a for i, a in enumerate(args) if not a.startswith("-") and not (i > 0 and _ACL_VALUE.search(args[i - 1]))] if program == "setfacl" else targets[1:]
        h = _protected_target(paths, scope, "destructive.chmod_chown_recursive", f"{program} -R")
        return h if h and not _NOT_OUTSIDE.search(h[1]) else None
    return _disk_hit(program, args)


_MKFS = js_re(r"^(mkfs(\..+)?|mke2fs|mkswap|wipefs|mkntfs|mkdosfs|mkfs_.+|mkexfatfs)$")
_DISK_TOOLS = js_re(r"^(sgdisk|gdisk|fdisk|sfdisk|cfdisk|parted|blkdiscard|badblocks|cryptsetup|hdparm|nvme|sg_format|zpool|lvremove|vgremove|pvremove|mdadm|dmsetup|losetup|flashrom)$")
_KEY_PREFIX = js_re(r"^[a-z]+=")
_LIST_ONLY = js_re(r"^(-l|--list|-s|--show|print)$")
_PARTITION_EDIT = js_re(r"^(mklabel|rm|mkpart|resizepart)$")
_HDPARM_WRITE = js_re(r"security-erase|trim-sector|write-sector|--dco")
_VOLUME_REMOVERS = js_re(r"^(lvremove|vgremove|pvremove)$")
_SUBVOLUME = js_re(r"^su")
_SUBVOLUME_DELETE = js_re(r"^(delete|del)$")


def _disk_hit(program: str, args: List[str]) -> Optional[VerbHit]:
    devices = [a for a in args if is_device_path(_KEY_PREFIX.sub("", a, count=1))]
    if _MKFS.search(program) and devices:
        return ("destructive.mkfs", f"{program} on a device")
    if program == "zpool" and args[:1] == ["destroy"]:
        return ("destructive.disk_tool", "zpool destroy")
    # Volumes and datasets go by name, not by device: `vgremove -f vg0`, `zfs destroy -r tank/data`.
    named = any(not a.startswith("-") for a in args)
    if (_VOLUME_REMOVERS.search(program) and named) or (program == "zfs" and args[:1] == ["destroy"]):
        return ("destructive.disk_tool", f"{program} {' '.join(a for a in args if not a.startswith('-'))}")
    if program == "btrfs" and _SUBVOLUME.search(args[0] if args else "") and _SUBVOLUME_DELETE.search(args[1] if len(args) > 1 else ""):
        return ("destructive.disk_tool", "btrfs subvolume delete")
    if not _DISK_TOOLS.search(program) or not devices:
        return None
    if program in ("fdisk", "sfdisk", "parted", "gdisk") and any(_LIST_ONLY.search(a) for a in args) and not any(_PARTITION_EDIT.search(a) for a in args):
        return None
    if program == "hdparm" and not any(_HDPARM_WRITE.search(a) for a in args):
        return None
    return ("destructive.disk_tool", f"{program} {devices[0]}")


_FIND_STOP = js_re(r"^[-(!]")
_FIND_SYMLINK_OPT = js_re(r"^-[HLP]$")
_FIND_FILTER = js_re(r"^-(i?name|i?path|i?regex|newer|mtime|mmin|size|wholename|empty|user|perm)$")
_CHATTR_FREEZES = js_re(r"^\+[a-zA-Z]*[ia]")
_ACL_VALUE = js_re(r"^-[a-zA-Z]*[mxMX]$")
_EVERY_FILE_TYPE = js_re(r"^[fd]$")
_EVERY_NAME = js_re(r"^(\*|\.\*)$")


def find_roots(args: Sequence[str]) -> List[str]:
    stop = next((i for i, a in enumerate(args) if _FIND_STOP.search(a) and not _FIND_SYMLINK_OPT.search(a)), -1)
    return [a for a in (args if stop == -1 else args[:stop]) if not _FIND_SYMLINK_OPT.search(a)]


_FIND_NAMED = js_re(r"^-(i?name|i?path|wholename)$")
_DOT_GIT = js_re(r"(^|\/)\.git\/?$")


def find_delete_hit(args: Sequence[str], deletes: bool, scope: "Scope") -> Optional[VerbHit]:
    """`find ROOTS … -delete` (or -exec rm) over a protected tree."""
    roots = find_roots(args)
    if not deletes:
        return None
    for r in roots:
        place = classify_target(scope.dir, r, scope.ctx)
        if place and place != "workspace":
            return ("destructive.find_delete", f"find {r} deleting")
        if is_home_dot_entry(scope.dir, r, scope):
            return ("destructive.protected_file", f"find {r} deleting")
    # `find . -name .git ... -exec rm -rf {} +`: every repository's history under the roots.
    named = [args[i + 1] if i + 1 < len(args) else "" for i, a in enumerate(args) if _FIND_NAMED.search(a)]
    if any(_DOT_GIT.search(n) for n in named):
        return ("destructive.git_history", "find deleting .git directories")
    # -mindepth 1 only spares the root itself, and a negated test (`! -name .`, `-not -path './.git*'`)
    # spares only what it names: everything else still goes.
    # `-type f` or `-type d` narrows nothing (every file, every directory), nor does `-name '*'`.
    following = [args[i + 1] if i + 1 < len(args) else "" for i in range(len(args))]
    narrows = [
        (_FIND_FILTER.search(a) is not None and not _EVERY_NAME.search(following[i])) or (a == "-type" and not _EVERY_FILE_TYPE.search(following[i]))
        for i, a in enumerate(args)
    ]
    filtered = any(n and (i == 0 or args[i - 1] not in ("!", "-not")) for i, n in enumerate(narrows))
    places = [classify_target(scope.dir, r, scope.ctx) for r in roots]
    in_workspace = True if not roots else "workspace" in places
    return ("destructive.find_delete", "find deleting the whole workspace") if in_workspace and not filtered else None
