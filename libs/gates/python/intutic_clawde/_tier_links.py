"""A link the agent makes towards a protected place is a write to that place (a port of libs/governance/src/tier/links.ts).

Once `rc` points at ~/.bashrc, every later `echo ... > rc` or Write of `rc` lands there. So
`ln -s ~/.bashrc rc`, `ln -sf /etc x`, `ln ~/.bashrc h` (a hard link), `cp -s`/`cp -l`/`link` towards
/, a system directory, home, a system file or home configuration is the protected_file hit that
writing the file itself gets. Links to programs and libraries (/usr, /opt, /bin ...) stay allowed:
writing through them needs root, and making them is everyday work. A symbolic link made earlier in
the line is remembered (note_link), so a path through it is judged as the place it reaches: `ln -s
/work/proj/.git g && rm -rf g/objects` removes the history.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from ._expand import Scope
from ._jsre import js_re
from ._paths import UNKNOWN, absolute_path, classify_target, describe_place, is_protected_file
from ._tier_files import VerbHit

#: Trees of programs and libraries: root-owned, read-only to the agent, and linked to every day.
_PROGRAM_TREES = js_re(r"^\/(usr|bin|sbin|lib|lib32|lib64|libx32|opt)(\/|$)")
#: Options taking a value (`ln -S SUFFIX`, `-t DIR`).
_VALUE_OPTS = {"-S", "--suffix", "-t", "--target-directory"}
_CP_LINK_SHORT = js_re(r"^-[A-Za-z]*[sl]")
_CP_LINK_LONG = js_re(r"^--(symbolic-link|link)$")
_LAST_SEGMENT = js_re(r"\/+[^/]*\/*$")
_SYMBOLIC_SHORT = js_re(r"^-[A-Za-z]*s")
_TRAILING_SLASHES = js_re(r"\/+$")
_DIRNAME = js_re(r"^.*\/")
_LINK_NAME = js_re(r"\/[^/]*$")


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


def _basename(path: str) -> str:
    return _DIRNAME.sub("", _TRAILING_SLASHES.sub("", path), count=1)


def note_link(argv: Sequence[str], scope: Scope) -> None:
    """Remember the symbolic links `ln -s` makes, so later paths through them reach their targets (`cp -rs`
    makes real directories holding links to files: nothing under them is reached through a link)."""
    program = argv[0] if argv else ""
    args = list(argv[1:])
    symbolic = program == "ln" and any(a == "--symbolic" or _SYMBOLIC_SHORT.search(a) for a in args)
    cmd = _link_command(program, args) if symbolic else None
    if cmd is None or scope.ctx.links is None:
        return
    sources, bases = cmd
    base = bases[0] if bases else None
    # Read before any is remembered: one reading of DEST must not pass through the other.
    made: List[Tuple[str, str]] = []
    for source in sources:
        # The link: `ln -s SRC` makes ./SRC's name, `-t DIR` or several sources make DIR/its name, and
        # `ln -s SRC DEST` makes DEST, or DEST/SRC's name when DEST is a directory (either, unless `DEST/`).
        in_dir = [_basename(source)] if base is None else [f"{base}/{_basename(source)}"]
        names = [base, *in_dir] if len(bases) == 2 and len(sources) == 1 and base is not None and not base.endswith("/") else in_dir
        for name in names:
            link = absolute_path(scope.dir, name, scope.ctx)
            start = scope.dir if source.startswith("/") or source.startswith("~") else (_LINK_NAME.sub("", link, count=1) or "/")
            target = absolute_path(start, source, scope.ctx)
            if UNKNOWN not in link and UNKNOWN not in target:
                made.append((link, target))
    for link, target in made:
        scope.ctx.links[link] = target
