"""`make -f -`, `make -f /dev/stdin` (a port of libs/governance/src/tier/make.ts).

A makefile read from standard input, whose recipes make hands to a shell.
"""
from __future__ import annotations

from typing import List, Optional, Sequence

from ._jsre import js_re

_STDIN_FILES = {"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"}
MAKES = js_re(r"^(make|gmake|bmake|pmake|remake)$")
_ATTACHED = js_re(r"^-f.")
_LONG = js_re(r"^--(file|makefile)=")
_SHELL_FN = js_re(r"\$\(shell\s+([^)]*)\)", "g")
_RM_VAR = js_re(r"\$\((RM)\)", "g")
_DOLLARS = js_re(r"\$\$", "g")
_RECIPE_PREFIX = js_re(r"^[@+\-\s]+")
_RULE = js_re(r"^[^\t#=:][^=;]*?::?[^=;]*;(.*)$")
_RULE_PREFIX = js_re(r"^[\s@+-]+")


def make_reads_stdin(args: Sequence[str]) -> bool:
    """Whether make reads its makefile from standard input."""
    for i, a in enumerate(args):
        if a in ("-f", "--file", "--makefile"):
            if (args[i + 1] if i + 1 < len(args) else "") in _STDIN_FILES:
                return True
        elif _ATTACHED.search(a) and a[2:] in _STDIN_FILES:
            return True
        elif _LONG.search(a) and a[a.index("=") + 1 :] in _STDIN_FILES:
            return True
    return False


def make_substituted_file(args: Sequence[str]) -> Optional[str]:
    """The script of a process substitution make reads as its makefile (`make -f <(echo …)`), or None."""
    for i, a in enumerate(args):
        if a in ("-f", "--file", "--makefile"):
            file = args[i + 1] if i + 1 < len(args) else ""
        elif _LONG.search(a):
            file = a[a.index("=") + 1 :]
        elif _ATTACHED.search(a):
            file = a[2:]
        else:
            file = ""
        if file.startswith("<(") and file.endswith(")"):
            return file[2:-1]
    return None


def _vars(line: str) -> str:
    return _DOLLARS.sub("$", _RM_VAR.sub("rm -f", line))


def make_recipes(text: str) -> List[str]:
    """The shell command lines a makefile's recipes run."""
    out = [_vars(m.group(1)) for m in _SHELL_FN.finditer(text)]
    for line in text.split("\n"):
        if line.startswith("\t"):
            out.append(_vars(_RECIPE_PREFIX.sub("", line[1:], count=1)))
        else:
            rule = _RULE.search(line)
            if rule:
                out.append(_vars(_RULE_PREFIX.sub("", rule.group(1), count=1)))
    return [r for r in out if r.strip() != ""]
