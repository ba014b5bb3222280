"""Other names of a directory that the kernel gives (a port of libs/governance/src/tier/proc-aliases.ts).

`/proc/<pid>/root` is that process's `/`, `/proc/self/cwd` is the current directory,
`/proc/<other pid>/cwd` and an open descriptor (`/dev/fd/3`, `/proc/self/fd/3`) are directories the
line cannot know. A path is rewritten to what it names before it is classified.
"""
from __future__ import annotations

import re

UNKNOWN = "\u0000"
_PROCESS = re.compile(r"^(self|thread-self|\d+|[^/]*\x00[^/]*)$")
_MAYBE = re.compile(r"^/+(proc|dev)/|/(proc|dev)/")


def resolve_proc_aliases(path: str, dir: str) -> str:
    """The path, absolute and not yet normalized, with each /proc or /dev/fd alias replaced by what it names."""
    if not _MAYBE.search(path):
        return path
    segs = []
    for s in path.split("/"):
        if s in ("", "."):
            continue
        if s == ".." and segs and UNKNOWN not in segs[-1]:
            segs.pop()
        else:
            segs.append(s)
        n = len(segs)
        a, b, c, d = (segs + [None] * 4)[:4]
        if n == 3 and a == "proc" and _PROCESS.match(b) and c == "root":
            segs = []
        elif n == 3 and a == "proc" and _PROCESS.match(b) and c == "cwd":
            segs = [x for x in dir.split("/") if x] if b in ("self", "thread-self") else [UNKNOWN]
        elif (n == 4 and a == "proc" and _PROCESS.match(b) and c == "fd" and re.match(r"^\d+$", d)) or (
            n == 3 and a == "dev" and b == "fd" and re.match(r"^\d+$", c)
        ):
            segs = [UNKNOWN]
    # `..` above a directory that cannot be known could be anywhere: the worst place, the root.
    if any(s == ".." and i > 0 and segs[i - 1] == UNKNOWN for i, s in enumerate(segs)):
        return "/" + UNKNOWN
    return "/" + "/".join(segs)
