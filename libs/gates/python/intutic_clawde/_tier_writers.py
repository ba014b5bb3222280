"""Programs that write over a file, or into a tree, named by an option or an operand (a port of libs/governance/src/tier/writers.ts).

A download saved over a file (curl -o, wget -O and its log's -o), a copy (rsync, scp), an output file
(`--output F` of any program, openssl's `-out F`, `-o F` of sort, gpg and the compilers), an archive
unpacked (tar -x -C, unzip -d, 7z x -oDIR, cpio -i -D DIR). Over a system file or home configuration, or into /, a system directory or
home, it is the protected_file hit that `> ~/.bashrc` gets.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Sequence

from ._jsre import js_re
from ._paths import classify_target, describe_place, is_protected_file
from ._tier_files import VerbHit

if TYPE_CHECKING:
    from ._expand import Scope

_SHORT_BUNDLE = js_re(r"^-[A-Za-z]")
_OLD_STYLE_EXTRACT = js_re(r"^[A-Za-z]*x")
_SHORT_EXTRACT = js_re(r"^-[A-Za-z]*x")
# Programs whose `-o FILE` is the file they write.
_OUTPUT_O = js_re(r"^(sort|gpg|gpg2|gcc|g\+\+|cc|c\+\+|clang|clang\+\+|go|rustc|pandoc|uglifyjs|esbuild)$")
_REMOTE = js_re(r"^[^/]*:")
_SEVEN_ZIP_EXTRACT = js_re(r"^[xe]$")
_SEVEN_ZIP_OUT = js_re(r"^-o.")
_CPIO_EXTRACT = js_re(r"^-[A-Za-z]*i")


def _option_values(args: Sequence[str], short: Optional[str], long: Optional[str]) -> List[str]:
    """An option's values: `-o FILE`, `-oFILE`, a short bundle ending in it (`-sSLo FILE`), `--output FILE`, `--output=FILE`."""
    out: List[str] = []
    for i, a in enumerate(args):
        if a == "--":
            break
        nxt = args[i + 1] if i + 1 < len(args) else ""
        if long is not None and a == f"--{long}":
            out.append(nxt)
        elif long is not None and a.startswith(f"--{long}="):
            out.append(a[len(long) + 3 :])
        elif short is not None and _SHORT_BUNDLE.search(a):
            at = a.find(short, 1)
            if at > 0:
                out.append(nxt if at == len(a) - 1 else a[at + 1 :])
    return [v for v in out if v not in ("", "-")]


def _operands(args: Sequence[str]) -> List[str]:
    return [a for a in args if not a.startswith("-")]


def _scp_destination(args: Sequence[str]) -> List[str]:
    """scp's local destination: its last operand, unless it names a host (`host:path`)."""
    return [d for d in _operands(args)[-1:] if not _REMOTE.search(d)]


def _written_files(program: str, args: Sequence[str]) -> List[str]:
    """The files a command writes by an option or operand that names them."""
    output = _option_values(args, None, "output")
    if program == "curl":
        return _option_values(args, "o", "output")
    if program == "wget":
        return [*_option_values(args, "O", "output-document"), *_option_values(args, "o", "output-file")]
    if program == "rsync":
        return _operands(args)[-1:]
    if program == "scp":
        return _scp_destination(args)
    if program == "openssl":
        return [*output, *((args[i + 1] if i + 1 < len(args) else "") for i, a in enumerate(args) if a == "-out")]
    if _OUTPUT_O.search(program):
        return [*output, *_option_values(args, "o", None)]
    return output


def _unpacked_into(program: str, args: Sequence[str]) -> List[str]:
    """The directories an archive is unpacked into."""
    if program == "rsync":
        return _operands(args)[-1:]
    if program == "scp":
        return _scp_destination(args)
    if program in ("7z", "7za", "7zr"):
        first = _operands(args)[:1]
        return [a[2:] for a in args if _SEVEN_ZIP_OUT.search(a)] if first and _SEVEN_ZIP_EXTRACT.search(first[0]) else []
    if program == "cpio":
        extract = any(a == "--extract" or _CPIO_EXTRACT.search(a) for a in args)
        return _option_values(args, "D", "directory") if extract else []
    if program in ("tar", "unzip") and _extracts(program, args):
        return _option_values(args, "C", "directory") if program == "tar" else _option_values(args, "d", None)
    return []


def _extracts(program: str, args: Sequence[str]) -> bool:
    if program in ("unzip", "bsdtar", "7z"):
        return True
    first = args[0] if args else ""
    return "--extract" in args or "--get" in args or bool(_OLD_STYLE_EXTRACT.search(first)) or any(_SHORT_EXTRACT.search(a) for a in args)


def _over_place(path: str, scope: "Scope") -> Optional[str]:
    place = classify_target(scope.dir, path, scope.ctx)
    return describe_place(place) if place in ("root", "system", "home") else None


def writer_hit(argv: Sequence[str], scope: "Scope") -> Optional[VerbHit]:
    """The protected file or place a download, a copy or an unpacked archive would write over, or None."""
    program = argv[0] if argv else ""
    args = list(argv[1:])
    for f in _written_files(program, args):
        if is_protected_file(scope.dir, f, scope.ctx):
            return ("destructive.protected_file", f"{program} writing {f}")
    for d in _unpacked_into(program, args):
        place = _over_place(d, scope)
        if place:
            return ("destructive.protected_file", f"{program} writing into {place} ({d})")
    return None
