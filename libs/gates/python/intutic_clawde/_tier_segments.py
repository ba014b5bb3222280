"""The segments of a command line (a port of libs/governance/src/tier/segments.ts).

Every simple command in it (chains, pipes, subshells, substitutions, scripts handed to `bash -c`,
`eval`, `sudo sh -c` …), each as written and normalized. Rules are matched per segment and a bypass
lowers the decision of the segment it matches only, so an approved `git push --force origin
feature` never covers what is chained to it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List

from ._expand import expand_argv, new_scope
from ._normalize import effective_command
from ._paths import PathContext, workspace_of
from ._shell import ShellScript, parse_shell

MAX_DEPTH = 8


@dataclass(eq=False)
class Segment:
    #: The segment as written, then normalized (wrappers removed, words single-spaced).
    forms: List[str]


def command_segments(command: str, cwd: Any = None, home: Any = None) -> List[Segment]:
    ctx = PathContext(cwd=cwd, home=home)
    scope = new_scope(ctx, workspace_of(ctx))
    out: List[Segment] = []

    def visit(script: ShellScript, depth: int) -> None:
        if depth > MAX_DEPTH:
            return
        for p in script.pipelines:
            for c in p.commands:
                if c.group is not None:
                    visit(c.group, depth + 1)
                for sub in c.substitutions:
                    visit(sub, depth + 1)
                forms = {c.raw: None}
                for argv in expand_argv(c.argv, scope, c.split)[:4]:
                    eff = effective_command(argv)
                    if eff.argv:
                        forms[" ".join(eff.argv)] = None
                    for i in eff.inner:
                        if i.kind == "shell":
                            visit(parse_shell(i.text or ""), depth + 1)
                        if i.kind == "exec" and i.args:
                            out.append(Segment([" ".join(i.args)]))
                forms.pop("", None)
                if forms:
                    out.append(Segment(list(forms)))

    visit(parse_shell(command), 0)
    return out
