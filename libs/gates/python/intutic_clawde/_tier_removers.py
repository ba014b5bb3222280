"""Commands that remove as a side effect of another job (a port of libs/governance/src/tier/removers.ts).

`crontab -r` (the user's whole crontab), `tar --remove-files` (the files it archives), `rsync --delete`
into a protected place (whatever of the destination the source lacks): each is judged as the removal
it amounts to.
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence

from ._jsre import js_re
from ._paths import classify_target, describe_place
from ._tier_files import VerbHit, long_opt
from ._tier_harness_config import is_home_dot_entry

_CRONTAB_REMOVE = js_re(r"^-[a-zA-Z]*r")
_TAR_FILE = js_re(r"^-[a-zA-Z]*f$")
_RSYNC_DELETE = js_re(r"^--(delete-|del$|remove-source-files)")


def _operands_of(args: Sequence[str]) -> List[str]:
    if "--" not in args:
        return [a for a in args if not a.startswith("-")]
    at = list(args).index("--")
    return [a for a in args[:at] if not a.startswith("-")] + list(args[at + 1 :])


def _protected_place(paths: Sequence[str], scope: Any) -> Optional[str]:
    for p in paths:
        place = classify_target(scope.dir, p, scope.ctx)
        if place:
            return f"{describe_place(place)} ({p})"
        if is_home_dot_entry(scope.dir, p, scope):
            return p
    return None


def remover_hit(argv: Sequence[str], scope: Any) -> Optional[VerbHit]:
    program = argv[0] if argv else ""
    args = list(argv[1:])
    if program == "crontab" and any(_CRONTAB_REMOVE.search(a) for a in args):
        return ("destructive.protected_file", "crontab -r removing the user's crontab")
    if program == "tar" and any(long_opt(a, "remove-files", 3) for a in args):
        # The archive's own name follows -f; every other operand is removed once archived.
        archive = next((i for i, a in enumerate(args) if _TAR_FILE.search(a) or a == "--file"), -1)
        removed = _operands_of([a for i, a in enumerate(args) if archive == -1 or i != archive + 1])
        place = _protected_place(removed, scope)
        if place:
            return ("destructive.rm_recursive", f"tar --remove-files of {place}")
    if program == "rsync" and any(long_opt(a, "delete", 3) or _RSYNC_DELETE.search(a) for a in args):
        place = _protected_place(_operands_of(args)[-1:], scope)
        if place:
            return ("destructive.rm_recursive", f"rsync --delete into {place}")
    return None
