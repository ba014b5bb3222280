"""A fork bomb: a function that starts itself twice through a pipe (`:(){ :|:& };:`), or a loop that
never ends and starts a process in the background every round without waiting for it (`while true;
do bash & done`) or a script that starts itself again in the background (`$0 & $0 &`), which fill the
process table as surely. Read from the script's pipelines (heredoc
bodies are text, not code), each with the `&` that sent it to the background. Mirrors
tier/fork-bombs.ts."""
from __future__ import annotations

from typing import Sequence

from ._jsre import js_re
from ._shell import Pipeline

_QUOTES = js_re(r"""'[^']*'|"(?:[^"\\]|\\.)*\"""", "g")
_SPACES = js_re(r"\s+", "g")
_RECURSIVE = [
    js_re(r"(?<![\w:.-])([A-Za-z_:.][\w:.-]*) ?\( ?\) ?\{[^}]*?\1 ?\| ?\1 ?&?[^}]*\}"),
    js_re(r"function ([A-Za-z_][\w-]*) ?(?:\( ?\))? ?\{[^}]*\1 ?\| ?\1"),
]
#: A loop whose condition is always true (`while true`, `while :`, `until false`, `for ((;;))`, whose `;;` ends
#: the first pipeline), and its body.
_ENDLESS_LOOP = js_re(
    r"(?:^|[;&|({\s])(?:while (?:true|:|\[ 1 \]|\(\( ?1 ?\)\)|\/bin\/true|\/usr\/bin\/true)|until (?:false|\/bin\/false|\/usr\/bin\/false)|for ?\(\(;) ?;? ?do ((?:(?!\bdone\b).)*)\bdone\b",
    "g",
)
#: A lone `&` (not `&&`, `>&`, `&>`, `|&`): what precedes it runs in the background.
_BACKGROUND = js_re(r"(?<![&>|])&(?![&>])")
_WAIT = js_re(r"\bwait\b")


#: `$0`, `"${0}"`: the script itself, as its command or as a shell's script (`bash "$0"`).
_SELF = js_re(r"^\"?\$(0|\{0\})\"?$")
_SHELL = js_re(r"^(ba|da|z|k)?sh$")


def _starts_itself(argv: Sequence[str]) -> bool:
    first = argv[0] if argv else ""
    return bool(_SELF.search(first)) or (bool(_SHELL.search(first)) and len(argv) > 1 and bool(_SELF.search(argv[1])))


def is_fork_bomb(pipelines: Sequence[Pipeline]) -> bool:
    """Whether a script's pipelines are a fork bomb."""
    if any((p.background or len(p.commands) > 1) and any(_starts_itself(c.argv) for c in p.commands) for p in pipelines):
        return True
    text = ";".join(f"{p.raw} &" if p.background else p.raw for p in pipelines)
    code = _SPACES.sub(" ", _QUOTES.sub("", text))
    if any(rx.search(code) for rx in _RECURSIVE):
        return True
    return any(_BACKGROUND.search(m.group(1)) and not _WAIT.search(m.group(1)) for m in _ENDLESS_LOOP.finditer(code))
