"""Taking a protected place away from its owner by its permissions (a port of libs/governance/src/tier/permissions.ts).

Recursive or not: a chmod that leaves the owner unable to read /, a system directory, home, the
workspace root or above it, a dotfile or dot-directory in home or another protected file (`chmod 000
~/.ssh`, `chmod -R a-rwx ~`, `chmod u= /work`), or unable to enter /, a system directory, home or a
dot-directory (`chmod 644 ~`, `chmod -R 600 ~/.ssh`). Tightening what others may do (`chmod 700
~/.ssh`, `chmod -R go-rwx ~/.ssh`, `chmod 600 ~/.ssh/id_ed25519`) and adding (`chmod +x f`) take
nothing from the owner. A system program its owner can no longer run (`chmod -x /bin/bash`) is taken
too. Handing a protected place to everyone is the other way to lose it: writable by others (`chmod
777 ~/.ssh`, `chmod o+w /etc/sudoers`) or run as its owner by anyone (`chmod u+s /bin/bash`, `chmod
4755 /usr/bin/python3`). A mode that cannot be read is the worst one. A target that cannot be
resolved is judged only when the change is recursive, as for rm: a plain chmod of a file is everyday
work.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from ._jsre import js_re
from ._paths import UNKNOWN, absolute_path, classify_target, describe_place, is_protected_file
from ._tier_files import long_opt
from ._tier_harness_config import is_home_dot_entry

#: Places the owner must still be able to enter: directories whose every path runs through them.
_ENTERED = ("root", "system", "home")
#: Dot-directories a plain chmod names as directories (a dotfile is as often a file: `chmod 600 ~/.netrc`).
_DOT_DIRECTORIES = js_re(r"^\.(ssh|gnupg|config|aws|kube|docker)\/?$")
#: Runtime, served and logged files (a socket, a web root, a log): opening one to everyone (`chmod 666 /var/run/docker.sock`, `chmod -R 777 /var/www/html`) is a habit, not a loss.
_RUNTIME = js_re(r"^\/(var|run|srv|opt)\/")
#: System programs: taking their execute bit is taking the program.
_PROGRAM_DIRS = js_re(r"^\/(usr\/(local\/)?)?s?bin\/[^/]+$")
_OCTAL = js_re(r"^[0-7]{1,4}$")
_CLAUSE = js_re(r"^([ugoa]*)((?:[-+=][rwxXstugo]*)+)$")
_OPS = js_re(r"([-+=])([rwxXstugo]*)", "g")
_OWNER = js_re(r"[ua]")
_COPY = js_re(r"[ugo]")
_EXECUTE = js_re(r"[xX]")
_FLAGS = js_re(r"^-[Rcfvh]+$")
_GLOB = js_re(r"[*?[]")
_DIRNAME = js_re(r"^.*\/(?=[^/]+\/?$)")
_OTHERS = js_re(r"[oa]")
_ONLY_OTHERS = js_re(r"^o+$")


def grants(mode: str) -> Dict[str, bool]:
    """What a mode gives away: writing by others (`777`, `o+w`, `a+w`), or running as the owner (`4755`, `u+s`, `+s`)."""
    if UNKNOWN in mode:
        return {"others_write": True, "set_id": True}
    if _OCTAL.search(mode):
        bits = int(mode, 8)
        return {"others_write": bits & 0o2 != 0, "set_id": len(mode) == 4 and bits & 0o6000 != 0}
    others_write = False
    set_id = False
    for clause in mode.split(","):
        m = _CLAUSE.search(clause)
        if not m:
            continue
        for op in _OPS.finditer(m.group(2)):
            sign, perms = op.group(1), op.group(2)
            if sign == "-":
                continue
            others_write = others_write or (_OTHERS.search(m.group(1)) is not None and "w" in perms)
            set_id = set_id or (not _ONLY_OTHERS.search(m.group(1)) and "s" in perms)
    return {"others_write": others_write, "set_id": set_id}


def owner_loss(mode: str) -> Dict[str, bool]:
    """What a mode takes from the owner: `000`, `644` on a directory, `a-r`, `u=w`, `-rwx`; `go-rwx` takes nothing."""
    if UNKNOWN in mode:
        return {"read": True, "enter": True}
    if _OCTAL.search(mode):
        owner = (int(mode, 8) >> 6) & 7
        return {"read": owner & 4 == 0, "enter": owner & 1 == 0}
    read = True
    enter = True
    for clause in mode.split(","):
        m = _CLAUSE.search(clause)
        if not m:
            return {"read": False, "enter": False}
        if m.group(1) != "" and not _OWNER.search(m.group(1)):
            continue
        for op in _OPS.finditer(m.group(2)):
            sign, perms = op.group(1), op.group(2)
            if _COPY.search(perms):
                continue
            if sign == "=" or "r" in perms:
                read = False if sign == "-" else "r" in perms
            if sign == "=" or _EXECUTE.search(perms):
                enter = False if sign == "-" else _EXECUTE.search(perms) is not None
    return {"read": not read, "enter": not enter}


def _chmod_words(args: Sequence[str]) -> Tuple[bool, Optional[str], List[str]]:
    """chmod's words: recursive or not, the mode (`--reference` is one the line cannot show) and the targets."""
    recursive = False
    mode: Optional[str] = None
    targets: List[str] = []
    options = True
    for a in args:
        if options and a == "--":
            options = False
        elif options and (_FLAGS.search(a) or long_opt(a, "recursive", 3)):
            recursive = recursive or "R" in a or a.startswith("--")
        elif options and a.startswith("--reference"):
            mode = UNKNOWN
        elif options and a.startswith("--"):
            continue
        elif mode is None:
            mode = a
        else:
            targets.append(a)
    return recursive, mode, targets


def _protected_kind(t: str, recursive: bool, scope: Any) -> Optional[Dict[str, Any]]:
    """What the target is, as far as its permissions go: a protected place, a dot-directory, another protected file; None when none."""
    unresolved = UNKNOWN in t or _GLOB.search(t) is not None
    place = classify_target(scope.dir, t, scope.ctx) if recursive or not unresolved else None
    if place:
        return {"what": describe_place(place), "entered": place in _ENTERED, "place": place}
    if not unresolved and is_home_dot_entry(scope.dir, t, scope):
        return {"what": t, "entered": recursive or _DOT_DIRECTORIES.search(_DIRNAME.sub("", t, count=1)) is not None or t.endswith("/")}
    return {"what": t, "entered": recursive} if is_protected_file(scope.dir, t, scope.ctx) else None


def permission_hit(argv: Sequence[str], scope: Any) -> Optional[tuple]:
    """A chmod that takes a protected place away from its owner, or hands it to everyone; None otherwise."""
    program = argv[0] if argv else ""
    if program != "chmod":
        return None
    recursive, mode, targets = _chmod_words(argv[1:])
    if mode is None:
        return None
    loss = owner_loss(mode)
    given = grants(mode)

    def hit(what: str, outcome: str) -> tuple:
        return ("destructive.chmod_chown_recursive", f"chmod {mode.replace(UNKNOWN, '…')} of {what.replace(UNKNOWN, '…')}: {outcome}")

    for t in targets:
        kind = _protected_kind(t, recursive, scope)
        if not kind:
            continue
        path = absolute_path(scope.dir, t, scope.ctx)
        runs = _PROGRAM_DIRS.search(path) is not None
        if loss["read"] or (loss["enter"] and (kind["entered"] or runs)):
            return hit(kind["what"], f"its owner could no longer {'read' if loss['read'] else 'run' if runs else 'enter'} it")
        # The project's own tree, or a data volume, open to everyone is a habit, not a loss of the machine.
        place = kind.get("place")
        opened = not _RUNTIME.search(path) if place is None else place in _ENTERED
        if given["others_write"] and opened:
            return hit(kind["what"], "anyone could change it")
        if given["set_id"] and place is None:
            return hit(kind["what"], "anyone could run it with its owner's rights")
    return None
