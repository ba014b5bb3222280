"""Programs that write over a file, or into a tree, named by an option or an operand (a port of libs/governance/src/tier/writers.ts).

A download saved over a file (curl -o, wget -O and its log's -o), a copy (rsync), an archive unpacked
(tar -x -C, unzip -d). Over a system file or home configuration, or into /, a system directory or
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


def _option_values(args: Sequence[str], short: str, long: Optional[str]) -> List[str]:
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
        elif _SHORT_BUNDLE.search(a):
            at = a.find(short, 1)
            if at > 0:
                out.append(nxt if at == len(a) - 1 else a[at + 1 :])
    return [v for v in out if v not in ("", "-")]


def _operands(args: Sequence[str]) -> List[str]:
    return [a for a in args if not a.startswith("-")]


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
    if program == "curl":
        files = _option_values(args, "o", "output")
    elif program == "wget":
        files = [*_option_values(args, "O", "output-document"), *_option_values(args, "o", "output-file")]
    elif program == "rsync":
        files = _operands(args)[-1:]
    else:
        files = []
    for f in files:
        if is_protected_file(scope.dir, f, scope.ctx):
            return ("destructive.protected_file", f"{program} writing {f}")
    if program == "rsync":
        into = _operands(args)[-1:]
    elif program in ("tar", "unzip") and _extracts(program, args):
        into = _option_values(args, "C", "directory") if program == "tar" else _option_values(args, "d", None)
    else:
        into = []
    for d in into:
        place = _over_place(d, scope)
        if place:
            return ("destructive.protected_file", f"{program} writing into {place} ({d})")
    return None
