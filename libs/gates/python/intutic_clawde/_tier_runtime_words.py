"""A command word built at run time (a port of libs/governance/src/tier/runtime-words.ts).

`$x`, `$(printf …)`, `` `echo …` ``, `eval "$y" …` cannot be read; its arguments can. It is judged as
the worst command those arguments would make destructive.
"""
from __future__ import annotations

from typing import List, Sequence

#: The commands an unreadable command word is tried as.
WORST_PROGRAMS = ["rm", "git", "dd", "chmod", "chown", "mkfs", "find", "shred", "truncate", "terraform", "kubectl", "psql", "redis-cli"]


def worst_commands(args: Sequence[str]) -> List[List[str]]:
    """The argv an unreadable program word with these arguments is judged as."""
    return [[p, *args] for p in WORST_PROGRAMS]
