"""A link the agent makes towards a protected place is a write to that place (a port of libs/governance/src/tier/links.ts).

Once `rc` points at ~/.bashrc, every later `echo ... > rc` or Write of `rc` lands there. So
`ln -s ~/.bashrc rc`, `ln -sf /etc x`, `ln ~/.bashrc h` (a hard link), `cp -s`/`cp -l`/`link` towards
/, a system directory, home, a system file or home configuration is the protected_file hit that
writing the file itself gets. Links to programs and libraries (/usr, /opt, /bin ...) stay allowed:
writing through them needs root, and making them is everyday work.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from ._expand import Scope
from ._jsre import js_re
from ._paths import absolute_path, classify_target, describe_place, is_protected_file
from ._tier_files import VerbHit

#: Trees of programs and libraries: root-owned, read-only to the agent, and linked to every day.
_PROGRAM_TREES = js_re(r"^\/(usr|bin|sbin|lib|lib32|lib64|libx32|opt)(\/|$)")
#: Options taking a value (`ln -S SUFFIX`, `-t DIR`).
_VALUE_OPTS = {"-S", "--suffix", "-t", "--target-directory"}
_CP_LINK_SHORT = js_re(r"^-[A-Za-z]*[sl]")
_CP_LINK_LONG = js_re(r"^--(symbolic-link|link)$")
_LAST_SEGMENT = js_re(r"\/+[^/]*\/*$")


def _link_command(program: str, args: Sequence[str]) -> Optional[Tuple[List[str], List[str]]]:
    """(sources, bases): what the links point at, and the directories a relative symbolic source is read from."""
    operands: List[str] = []
    target_dir: Optional[str] = None
    links = program in ("ln", "link")
    options = True
    i = 0
    while i < len(args):
        a = args[i]
        if options and a == "--":
            options = False
        elif options and a in _VALUE_OPTS:
            if a in ("-t", "--target-directory"):
                target_dir = args[i + 1] if i + 1 < len(args) else ""
            i += 1
        elif options and a.startswith("--target-directory="):
            target_dir = a[19:]
        elif options and a.startswith("--"):
            links = links or (program == "cp" and _CP_LINK_LONG.search(a) is not None)
        elif options and a.startswith("-") and a != "-":
            if program == "cp" and _CP_LINK_SHORT.search(a):
                links = True
            t = a.find("t")
            if program != "link" and t > 0:
                if t == len(a) - 1:
                    i += 1
                    target_dir = args[i] if i < len(args) else ""
                else:
                    target_dir = a[t + 1 :]
        else:
            operands.append(a)
        i += 1
    if not links or not operands:
        return None
    if target_dir is not None:
        return operands, [target_dir]
    if len(operands) == 1:
        return operands, []
    dest = operands[-1]
    # The link is `dest` itself, or an entry in `dest` when it is a directory: either can be the base.
    return operands[:-1], [dest, _LAST_SEGMENT.sub("", dest, count=1) or "."]


def _protected_source(source: str, dir: str, scope: Scope) -> Optional[str]:
    place = classify_target(dir, source, scope.ctx)
    if place in ("root", "system", "home"):
        return describe_place(place)
    if not is_protected_file(dir, source, scope.ctx):
        return None
    return None if _PROGRAM_TREES.search(absolute_path(dir, source, scope.ctx)) else source


def link_hit(argv: Sequence[str], scope: Scope) -> Optional[VerbHit]:
    """A link made towards a protected place or file, or None."""
    program = argv[0] if argv else ""
    if program not in ("ln", "link", "cp"):
        return None
    cmd = _link_command(program, list(argv[1:]))
    if cmd is None:
        return None
    sources, bases = cmd
    dirs = [scope.dir, *(absolute_path(scope.dir, b, scope.ctx) for b in bases)]
    for source in sources:
        for d in [scope.dir] if source.startswith("/") or source.startswith("~") else dirs:
            what = _protected_source(source, d, scope)
            if what is not None:
                return ("destructive.protected_file", f"{program} making a link to {what.replace(chr(0), '…')}")
    return None
