"""Which git verb a `git ...` command runs (a port of libs/governance/src/tier/git.ts).

Through its aliases (`-c alias.x=...`, `git config alias.x ...`); the command lines git hands to a
shell (`!` aliases, `submodule foreach`, a configured pager or ssh command) are walked, the verb
judged by _tier_systems and _tier_git_history.
"""
from __future__ import annotations

from typing import List, Sequence

from ._expand import Scope
from ._shell import parse_shell
from ._tier_git_history import git_history_hit, git_restore_hit
from ._tier_systems import git_command, git_config_commands, git_hit
from ._tier_walker import Walker, quote


def git_analysis(args: List[str], scope: Scope, walker: Walker, forms: Sequence[str]) -> None:
    sub, rest, aliases = git_command(args)
    for text in git_config_commands(args):
        walker.shell(text, scope, forms)
    if sub == "submodule" and "foreach" in rest:
        cmd = [a for a in rest[rest.index("foreach") + 1 :] if a not in ("--recursive", "-q", "--quiet")]
        walker.shell(cmd[0] if len(cmd) == 1 else " ".join(quote(a) for a in cmd), scope, forms)
        return
    if sub == "config":
        key = next((a for a in rest if a.startswith("alias.")), None)
        at = rest.index(key) + 1 if key is not None else -1
        value = rest[at] if key is not None and at < len(rest) else None
        if key and value is not None:
            aliases[key[6:]] = value
        # `git config --global core.pager CMD`: a command git runs from then on, judged now.
        words = [a for a in rest if not a.startswith("-")]
        if len(words) >= 2:
            for text in git_config_commands(["-c", f"{words[0]}={words[1]}"]):
                walker.shell(text, scope, forms)
    for name, value in aliases.items():
        scope.aliases[f"git:{name}"] = value
        if value.startswith("!"):
            walker.shell(value[1:], scope, forms)
    alias = None if sub is None else scope.aliases.get(f"git:{sub}")
    if alias is not None and alias.startswith("!"):
        walker.shell(alias[1:], scope, forms, positional=rest)
        return
    if alias is not None:
        words = [*(x for p in parse_shell(alias).pipelines for x in (p.commands[0].argv if p.commands else [])), *rest]
    else:
        words = [sub if sub is not None else "", *rest]
    sub = words[0] if words else None
    walker.push(git_hit(sub, words[1:]) or git_history_hit(sub, words[1:]) or git_restore_hit(sub, words[1:], scope), forms)
