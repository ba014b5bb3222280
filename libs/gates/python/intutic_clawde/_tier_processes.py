"""`ps` listing every process (`ps -e`, `ps -A`, `ps aux`, `ps -eo pid=`) prints every pid there is,
process 1 among them: killing what it prints takes the machine (or the container) down. Its output
stands for pid 1 where a line feeds it to kill (`ps -e -o pid= | xargs kill -9`, `kill $(ps -eo pid=)`).
Mirrors tier/processes.ts."""
from __future__ import annotations

from typing import Sequence

from ._jsre import js_re

_NARROWING_LONG = js_re(r"^--(user|User|pid|ppid|sid|tty|group|Group|quick-pid)\b")
_VALUED_LONG = js_re(r"^--(format|sort|cols|columns|rows|width|lines)$")
_LETTERS = js_re(r"^[a-zA-Z]*$")
_FROM_FORMAT = js_re(r"[oOk].*$")
_ENDS_IN_FORMAT = js_re(r"^[a-zA-Z]*[oOk]$")
_UNIX_NARROWS = js_re(r"[upCgGstq]")
_BSD_NARROWS = js_re(r"[pUt]")
_UNIX_EVERY = js_re(r"[eA]")

#: What a listing of every process's pids stands for: the one of them every other process rests on.
EVERY_PID = "1"


def lists_every_process(args: Sequence[str]) -> bool:
    """Whether `ps` with these options lists every process: -e/-A or BSD `ax`, with nothing that narrows it."""
    every = False
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("--"):
            if _NARROWING_LONG.search(a):
                return False
            if _VALUED_LONG.search(a):
                i += 1
            i += 1
            continue
        unix = a.startswith("-")
        word = a[1:] if unix else a
        # Letters up to a format or sort option (`-eo pid=`, `axo pid`), whose value is the rest or the next word.
        letters = _FROM_FORMAT.sub("", word, count=1) if _LETTERS.search(word) else ""
        if _ENDS_IN_FORMAT.search(word):
            i += 1
        if (_UNIX_NARROWS if unix else _BSD_NARROWS).search(letters):
            return False
        every = every or (bool(_UNIX_EVERY.search(letters)) if unix else ("a" in letters and "x" in letters))
        i += 1
    return every
