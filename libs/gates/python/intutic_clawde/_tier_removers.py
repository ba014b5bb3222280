"""Commands that remove as a side effect of another job (a port of libs/governance/src/tier/removers.ts).

`crontab -r` (the user's whole crontab), `tar --remove-files` (the files it archives), `rsync --delete`
into a protected place (whatever of the destination the source lacks), `rsync --remove-source-files`
of one (its files, once copied), `zip -m` (the files it moves into the archive), `git rm -r` of the
whole tree (not `--cached`), deleting secret keys from a keyring (`gpg --delete-secret-keys`, macOS
`security delete-keychain`) or an entry of the kubeconfig (`kubectl config delete-context`): each is
judged as the removal it amounts to.
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence

from ._jsre import js_re
from ._paths import classify_target, describe_place, workspace_of
from ._tier_files import VerbHit, long_opt
from ._tier_harness_config import is_home_dot_entry

_GPG = js_re(r"^gpg2?$")
_GPG_DELETE_SECRET = js_re(r"^--delete-secret-(keys?|and-public-keys?)$")
_SECURITY_DELETE = js_re(r"^delete-(keychain|identity|certificate|generic-password|internet-password)$")
_KUBECONFIG_DELETE = js_re(r"^(delete-(context|cluster|user)|unset)$")
_CRONTAB_REMOVE = js_re(r"^-[a-zA-Z]*r")
_TAR_FILE = js_re(r"^-[a-zA-Z]*f$")
_RSYNC_DELETE = js_re(r"^--(delete-|del$)")
_GIT_RECURSIVE = js_re(r"^-[a-zA-Z]*r")
_GIT_DRY = js_re(r"^-[a-zA-Z]*n")
_GIT_TOP = js_re(r"^:(\/|\(top\))\*?$")
_ZIP_MOVE = js_re(r"^-[a-zA-Z]*m")
_GIT_VALUED = ("-C", "-c", "--git-dir", "--work-tree", "--namespace")


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


def _git_removed(args: Sequence[str]) -> List[str]:
    """`git [-C dir] [-c k=v] rm -r PATHSPEC…` removing files from the work tree (not --cached, not a dry run): its pathspecs."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in _GIT_VALUED else 1
    if i >= len(args) or args[i] != "rm":
        return []
    rest = list(args[i + 1 :])
    opts = [a for a in rest if a.startswith("-") and a != "--"]
    recursive = any(a == "-r" or _GIT_RECURSIVE.search(a) for a in opts)
    if not recursive or any(a in ("--cached", "-n", "--dry-run") or _GIT_DRY.search(a) for a in opts):
        return []
    return _operands_of(rest)


def remover_hit(argv: Sequence[str], scope: Any) -> Optional[VerbHit]:
    program = argv[0] if argv else ""
    args = list(argv[1:])
    if program == "git":
        # `:/` and `:(top)` name the top of the work tree, wherever the command runs.
        paths = [workspace_of(scope.ctx) if _GIT_TOP.search(p) else p for p in _git_removed(args)]
        place = _protected_place(paths, scope)
        if place:
            return ("destructive.rm_recursive", f"git rm -r of {place}")
    if program == "zip" and any(a == "--move" or _ZIP_MOVE.search(a) for a in args):
        # The archive is the first operand; every other is moved into it: removed.
        place = _protected_place(_operands_of(args)[1:], scope)
        if place:
            return ("destructive.rm_recursive", f"zip -m of {place}")
    if _GPG.search(program) and any(_GPG_DELETE_SECRET.search(a) for a in args):
        return ("destructive.protected_file", f"{program} deleting secret keys from the keyring")
    if program == "security" and _SECURITY_DELETE.search(args[0] if args else ""):
        return ("destructive.protected_file", f"security {args[0]}")
    if program in ("kubectl", "oc") and args[:1] == ["config"] and _KUBECONFIG_DELETE.search(args[1] if len(args) > 1 else ""):
        return ("destructive.protected_file", f"{program} config {args[1]}: an entry of the kubeconfig")
    if program == "crontab" and any(_CRONTAB_REMOVE.search(a) for a in args):
        return ("destructive.protected_file", "crontab -r removing the user's crontab")
    if program == "tar" and any(long_opt(a, "remove-files", 3) for a in args):
        # The archive's own name follows -f; every other operand is removed once archived.
        archive = next((i for i, a in enumerate(args) if _TAR_FILE.search(a) or a == "--file"), -1)
        removed = _operands_of([a for i, a in enumerate(args) if archive == -1 or i != archive + 1])
        place = _protected_place(removed, scope)
        if place:
            return ("destructive.rm_recursive", f"tar --remove-files of {place}")
    if program == "rsync" and any(long_opt(a, "remove-source-files", 3) for a in args):
        # Every file of the sources is removed once copied: a move of the tree's files.
        place = _protected_place(_operands_of(args)[:-1], scope)
        if place:
            return ("destructive.rm_recursive", f"rsync --remove-source-files of {place}")
    if program == "rsync" and any(long_opt(a, "delete", 3) or _RSYNC_DELETE.search(a) for a in args):
        place = _protected_place(_operands_of(args)[-1:], scope)
        if place:
            return ("destructive.rm_recursive", f"rsync --delete into {place}")
    return None
