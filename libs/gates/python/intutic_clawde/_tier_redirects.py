"""Redirection targets expanded as the words of a command are (a port of libs/governance/src/tier/redirects.ts).

`> "$HOME/.bashrc"`, `f=~/.x; ... > $f`: a write through a variable is judged where it lands.
Heredoc bodies and `<` inputs stay as written.
"""
from __future__ import annotations

from typing import List

from ._expand import Scope, expand_word
from ._jsre import js_re
from ._shell_types import Redirect

_EXPANDS = js_re(r"[$`~{]")


def expanded_redirects(redirects: List[Redirect], scope: Scope) -> List[Redirect]:
    out: List[Redirect] = []
    for r in redirects:
        if ">" in r.op and _EXPANDS.search(r.target):
            out.extend(Redirect(op=r.op, target=t) for t in expand_word(r.target, scope))
        else:
            out.append(r)
    return out
