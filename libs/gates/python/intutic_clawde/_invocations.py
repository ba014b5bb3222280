"""What tmux and at run (a port of the end of libs/governance/src/invocations.ts).

`tmux new -d 'rm -rf ~'`, `split-window`, `run-shell`, the text `send-keys` types; `at TIME` and
`batch` read the job's script from standard input.
"""
from __future__ import annotations

from typing import List, Optional

from ._jsre import js_re
from ._shell_types import Inner

_TMUX_RUNS = {"new", "new-session", "new-window", "neww", "split-window", "splitw", "respawn-pane", "respawnp", "respawn-window", "respawnw", "run-shell", "run"}
_TMUX_VALUED = {"-s", "-n", "-c", "-t", "-x", "-y", "-F", "-e", "-l", "-f", "-L", "-S", "-N", "-T"}
_TMUX_KEYS = js_re(r"^(Enter|C-m|C-j|KPEnter|Escape|Tab|Space|BSpace|C-[a-z])$")
_AT_NO_STDIN = js_re(r"^-[a-zA-Z]*[flrdc]")


def tmux_commands(args: List[str]) -> List[Inner]:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("-L", "-S", "-f", "-T") else 1
    sub = args[i] if i < len(args) else ""
    words: List[str] = []
    k = i + 1
    while k < len(args):
        a = args[k]
        if a.startswith("-") and len(a) > 1 and not words:
            k += 1 if a in _TMUX_VALUED else 0
        else:
            words.append(a)
        k += 1
    if sub in _TMUX_RUNS and words:
        return [Inner("shell", text=" ".join(words))]
    if sub in ("send-keys", "send"):
        text = " ".join(w for w in words if not _TMUX_KEYS.search(w))
        return [Inner("shell", text=text)] if text else []
    return []


def at_reads_stdin(args: List[str]) -> Optional[str]:
    return None if any(_AT_NO_STDIN.search(a) for a in args) else "shell"
