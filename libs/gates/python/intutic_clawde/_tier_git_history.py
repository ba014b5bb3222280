"""Destroying what git keeps of the past (a port of libs/governance/src/tier/git-history.ts).

Deleting a remote branch or tag in any spelling, expiring the reflog or pruning unreachable objects
at once, deleting the default branch, `update-ref -d`, `symbolic-ref -d`, `stash clear`, rewriting
every commit (filter-branch, filter-repo, BFG), removing the workspace's own `.git` or a file of its
history (`rm -f .git/HEAD`, `truncate -s0 .git/packed-refs`), `git branch -D` of branches the line
cannot name.
"""
from __future__ import annotations

import re
from typing import Any, List, Optional, Sequence

from ._jsre import js_re
from ._tier_files import long_opt

_SHORT = js_re(r"^-[A-Za-z0-9]+$")
_BRANCH_OR_TAG_REF = js_re(r"^refs\/(heads|tags)\/[^\u0000]+$")
_DEFAULT_BRANCHES = js_re(r"^(?:(?:refs\/heads\/|origin\/|upstream\/)?(?:main|master|trunk|mainline|default|production|prod))$")
_AT_ONCE = js_re(r"^(now|all|0|-?1|\d+\.?(seconds?|minutes?)\.ago)$", "i")
_NEVER = js_re(r"^(never|false)$", "i")
_DELETE_REF = js_re(r"^\+?:")
_BRANCH_DELETE = js_re(r"^-[a-zA-Z]*[dD]")
_BFG = js_re(r"^bfg(-[\d.]+)?(\.jar)?$")
_BFG_ASKS = js_re(r"^--?(h|help|version)$")
_BFG_JAR = js_re(r"(^|\/)bfg[^/]*\.jar$")
_RM_R = js_re(r"^-[a-zA-Z]*[rR]|^--recursive$")
_TRAILING = js_re(r"\/+$")
_BRANCH_FORCE = js_re(r"^-[a-zA-Z]*D")
_SHORT_FORCE = js_re(r"^-[a-zA-Z]*f")
_GIT_INTERNAL = js_re(r"^(HEAD|config|packed-refs|refs|objects|logs)(\/|$)")
_REMOVES_FILE = js_re(r"^(rm|unlink|shred|truncate|srm)$")
_NAME_FILTER = js_re(r"^-(i?name|i?path|i?regex|i?wholename)$")
_EXPRESSION = js_re(r"^[-(!]")


def _hit(detail: str) -> tuple:
    return ("destructive.git_history", detail)


def _short(a: str) -> str:
    return a[1:] if _SHORT.search(a) else ""


def _value_of(args: Sequence[str], name: str) -> Optional[str]:
    for i, a in enumerate(args):
        if a.startswith(f"--{name}="):
            return a[len(name) + 3 :]
        if a == f"--{name}":
            return args[i + 1] if i + 1 < len(args) else ""
    return None


def _push(rest: Sequence[str]) -> Optional[tuple]:
    opts = [a for a in rest if a.startswith("-")]
    if any(long_opt(a, "dry-run", 2) or "n" in _short(a) for a in opts):
        return None
    if any(long_opt(a, "delete", 2) or "d" in _short(a) for a in opts):
        return _hit("git push deleting a remote ref")
    if any(long_opt(a, "prune", 2) for a in opts):
        return _hit("git push --prune deleting remote refs")
    refspecs = [a for a in rest if not a.startswith("-")][1:]
    if any(_DELETE_REF.search(r) for r in refspecs):
        return _hit("git push deleting a remote ref (:ref)")
    return None


def git_history_hit(sub: Optional[str], rest: Sequence[str]) -> Optional[tuple]:
    """A git subcommand (aliases resolved) that destroys history or refs, or None."""
    opts = [a for a in rest if a.startswith("-")]
    words = [a for a in rest if not a.startswith("-")]
    if any(a in ("-h", "--help") for a in opts):
        return None
    first = words[0] if words else None
    if sub == "push":
        return _push(rest)
    if sub == "reflog":
        if first == "delete":
            return _hit("git reflog delete")
        if first != "expire" or any(long_opt(a, "dry-run", 2) or a == "-n" for a in opts):
            return None
        when = [x for x in (_value_of(rest, "expire"), _value_of(rest, "expire-unreachable")) if x is not None]
        return _hit("git reflog expire") if any(not _NEVER.search(t) for t in when) else None
    if sub == "gc":
        prune = _value_of(rest, "prune")
        return _hit(f"git gc --prune={prune}") if prune is not None and _AT_ONCE.search(prune) else None
    if sub == "prune":
        if any(long_opt(a, "dry-run", 2) or "n" in _short(a) for a in opts):
            return None
        expire = _value_of(rest, "expire")
        return _hit("git prune of unreachable objects") if expire is None or _AT_ONCE.search(expire) else None
    if sub == "branch":
        deletes = any(long_opt(a, "delete", 3) or _BRANCH_DELETE.search(a) for a in opts)
        main = next((w for w in words if _DEFAULT_BRANCHES.search(w)), None)
        if deletes and main is not None:
            return _hit(f"git branch deleting the default branch {main}")
        # `-D` deletes unmerged work too: a branch the line cannot name may be the default one.
        force = any(_BRANCH_FORCE.search(a) for a in opts) or (deletes and any(long_opt(a, "force", 3) or _SHORT_FORCE.search(a) for a in opts))
        return _hit("git branch -D of branches the command line cannot name") if force and any("\u0000" in w for w in words) else None
    if sub == "update-ref":
        # Deleting one named branch or tag is `git branch -D`'s and `git tag -d`'s work; HEAD, the default
        # branch, a remote's refs, any other ref or one the line cannot name is history gone.
        ref = words[0] if words else "\u0000"
        everyday = _BRANCH_OR_TAG_REF.search(ref) is not None and _DEFAULT_BRANCHES.search(ref) is None
        deletes = any(a in ("-d", "--delete") for a in opts)
        return _hit(f"git update-ref -d {ref.replace(chr(0), '…')}") if deletes and not everyday else None
    if sub == "symbolic-ref":
        return _hit("git symbolic-ref -d") if any(a in ("-d", "--delete") for a in opts) else None
    if sub == "stash":
        return _hit("git stash clear") if first == "clear" else None
    if sub == "filter-branch":
        return _hit("git filter-branch rewriting every commit")
    if sub == "filter-repo":
        return None if any(a in ("--analyze", "--dry-run") for a in opts) else _hit("git filter-repo rewriting every commit")
    return None


def git_restore_hit(sub: Optional[str], rest: Sequence[str], scope: Any) -> Optional[tuple]:
    """`git checkout [REV] -- F`, `git restore F`, `git stash push -- F`: git writes F back to another copy, its hook settings' too."""
    from ._paths import is_protected_file

    if sub not in ("checkout", "restore", "stash"):
        return None
    if "--" in rest:
        paths = list(rest[list(rest).index("--") + 1 :])
    else:
        paths = [a for a in rest if not a.startswith("-")] if sub == "restore" else []
    file = next((p for p in paths if is_protected_file(scope.dir, p, scope.ctx)), None)
    return None if file is None else ("destructive.protected_file", f"git {sub} writing {file}")


def _git_internal(path: str, scope: Any) -> bool:
    """Inside the workspace's `.git`, the files that are its history or point into it: HEAD, config, packed-refs, refs, objects, reflogs."""
    from ._paths import workspace_of

    git = f"{workspace_of(scope.ctx)}/.git"
    return path.startswith(git + "/") and _GIT_INTERNAL.search(path[len(git) + 1 :]) is not None


def _git_internal_removed(program: str, args: Sequence[str], scope: Any) -> Optional[str]:
    """The `.git` internal a removal or truncation names (`rm -f .git/HEAD`, `truncate -s0 .git/packed-refs`, `shred -u .git/config`), or None."""
    from ._paths import absolute_path

    if not _REMOVES_FILE.search(program):
        return None
    return next((a for a in args if not a.startswith("-") and _git_internal(absolute_path(scope.dir, a, scope.ctx), scope)), None)


def history_tool_hit(argv: Sequence[str], scope: Any) -> Optional[tuple]:
    """BFG Repo-Cleaner (`bfg …`, `java -jar bfg.jar …`), `rm -r` of the workspace's `.git` or of the parts
    that are its history (refs, objects, reflogs), and removing or truncating a file of them or HEAD,
    config, packed-refs: `.git/index.lock` or `.git/hooks` stay allowed."""
    from ._paths import absolute_path, workspace_of

    program = argv[0] if argv else ""
    args = list(argv[1:])
    if _BFG.search(program) and any(a.startswith("-") and not _BFG_ASKS.search(a) for a in args):
        return _hit("BFG rewriting every commit")
    if program == "java" and any(_BFG_JAR.search(a) for a in args):
        return _hit("BFG rewriting every commit")
    if program == "rm" and any(_RM_R.search(a) for a in args):
        git = f"{workspace_of(scope.ctx)}/.git"
        def history(p: str) -> bool:
            return p == git or (p.startswith(git + "/") and re.match(r"(refs|objects|logs)(/|$)", p[len(git) + 1 :]) is not None)

        t = next((a for a in args if not a.startswith("-") and history(_TRAILING.sub("", absolute_path(scope.dir, a, scope.ctx), count=1))), None)
        if t is not None:
            return _hit(f"rm -r of the workspace's git history ({t})")
    removed = _git_internal_removed(program, args, scope)
    if removed is not None:
        return _hit(f"{program} of the workspace's git history ({removed})")
    # `find .git -name '*.lock' -delete` clears stale locks; unfiltered, it deletes what it finds.
    named = any(_NAME_FILTER.search(a) for a in args)
    if program == "find" and not named and any(a in ("-delete", "-exec", "-execdir") for a in args):
        stop = next((i for i, a in enumerate(args) if _EXPRESSION.search(a)), -1)
        roots = [a for a in args[: max(0, stop)] if a not in ("-H", "-L", "-P")]
        git = f"{workspace_of(scope.ctx)}/.git"

        def in_history(r: str) -> bool:
            p = _TRAILING.sub("", absolute_path(scope.dir, r, scope.ctx), count=1)
            return p == git or _git_internal(p, scope)

        root = next((r for r in roots if in_history(r)), None)
        if root is not None:
            return _hit(f"find deleting in the workspace's git history ({root})")
    return None
