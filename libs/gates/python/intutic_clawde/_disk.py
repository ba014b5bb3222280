"""What the gate found on disk just before a decision (a port of libs/governance/src/disk.ts).

Handed to the pure tier as plain data: the tier never touches the filesystem. A gate first asks the
tier which paths, files and command names a call depends on (disk_questions), looks them up, and
decides with the answers. Keys are absolute paths as the tier computes them from the words (`..`
folded, relative to the call's cwd and the `cd`s before), so both SDKs fill and read the same table:

    {"real": {path: real path}, "files": {path: {"kind": "text"|"binary"|"missing"|"unreadable",
     "text"?, "agent"?, "why"?}}, "commands": {name: absolute path on PATH}}
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Set

from ._jsre import js_re

#: _paths.UNKNOWN, repeated here because _paths imports this module.
_UNKNOWN = "\u0000"
_GLOB = js_re(r"[*?[$`]")


@dataclass
class DiskAsks:
    """What the tier would like to know, collected while it decides without the answers."""

    paths: List[str] = field(default_factory=list)
    files: List[str] = field(default_factory=list)
    commands: List[str] = field(default_factory=list)

    @staticmethod
    def _add(xs: List[str], x: str) -> None:
        if x not in xs:
            xs.append(x)


def _lookable(path: str) -> bool:
    """A path the gate can look up: absolute, with nothing unknown, no glob or unexpanded `$`, no placeholder."""
    return path.startswith("/") and _UNKNOWN not in path and "\u0001" not in path and _GLOB.search(path) is None


def path_forms(path: str, ctx: Any) -> List[str]:
    """The path as named and, when the gate resolved it elsewhere, its real path: a check holds if it holds for either."""
    # `link/*`, `link/$X`: the part before the first glob or unknown text is what the gate can resolve.
    segs = path.split("/")
    cut = next((i for i, s in enumerate(segs) if i > 0 and not _lookable("/" + s)), -1)
    known = path if cut == -1 else "/".join(segs[:cut])
    if known in ("", "/") or not _lookable(known):
        return [path]
    if ctx.asks is not None:
        DiskAsks._add(ctx.asks.paths, known)
    real = ((ctx.disk or {}).get("real") or {}).get(known)
    if real is None or real == known:
        return [path]
    if real == "/" and cut != -1:
        return [path, "/" + "/".join(segs[cut:])]
    return [path, real + path[len(known):]]


def file_facts(path: str, ctx: Any) -> Any:
    """What the gate found at a path a command runs: a dict, None when it did not answer, False when no gate looked."""
    if not _lookable(path):
        return False
    if ctx.asks is not None:
        DiskAsks._add(ctx.asks.files, path)
        DiskAsks._add(ctx.asks.paths, path)
    if ctx.disk is None:
        return False
    return (ctx.disk.get("files") or {}).get(path)


def command_path(name: str, ctx: Any) -> Any:
    """Where PATH finds a bare command name: a path, None when not found, False when no gate looked."""
    if name == "" or "/" in name or _UNKNOWN in name:
        return False
    if ctx.asks is not None:
        DiskAsks._add(ctx.asks.commands, name)
    if ctx.disk is None:
        return False
    return (ctx.disk.get("commands") or {}).get(name)
