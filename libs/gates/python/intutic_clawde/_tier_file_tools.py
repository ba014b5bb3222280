"""A file tool doing what the tier blocks in a shell (a port of libs/governance/src/tier/file-tools.ts).

Write, Edit, write_file, replace, apply_patch, an MCP server's write_file, move_file or delete ...:
writing, moving or deleting a system file or home configuration (protected_file, as
`echo ... > ~/.bashrc`), deleting the filesystem root, a system directory, home, the workspace root or
above it (rm_recursive, as `rm -r`), or moving one of them (move_protected, as `mv`). Which tools:
those whose name says they change files; a tool that reads, lists or searches what it names is not one.
"""
from __future__ import annotations

import re
from typing import Any, List

from ._jsre import js_re
from ._paths import PathContext, classify_target, describe_place, is_protected_file, workspace_of
from ._subjects import paths_of, strings_of
from ._tier_files import VerbHit

_WRITING_TOOL = js_re(r"write|edit|replace|patch|create|save|append|insert|move|rename|delete|remove|overwrite|truncate|copy|trash|purge|wipe", "i")
_DELETING_TOOL = js_re(r"delete|remove|rmdir|trash|purge|wipe", "i")
_MOVING_TOOL = js_re(r"move|rename", "i")
_PATCH_TOOL = js_re(r"patch", "i")
#: The files an apply_patch body names (`*** Update File: path`, `*** Move to: path`).
_PATCH_FILE = re.compile(r"^\*\*\* (?:(?:Add|Update|Delete) File|Move to): (.+)$", re.M)


def file_tool_hits(tool: str, inp: Any, ctx: PathContext) -> List[VerbHit]:
    """The tier's hits for a file tool's call."""
    if not _WRITING_TOOL.search(tool):
        return []
    patched = [m.group(1).strip() for s in strings_of(inp) for m in _PATCH_FILE.finditer(s)] if _PATCH_TOOL.search(tool) else []
    directory = workspace_of(ctx)
    paths: List[str] = []
    for path in [*paths_of(inp), *patched]:
        if path not in paths:
            paths.append(path)
    hits: List[VerbHit] = []
    for path in paths:
        place = classify_target(directory, path, ctx)
        if place and _DELETING_TOOL.search(tool):
            hits.append(("destructive.rm_recursive", f"{tool} of {describe_place(place)}"))
        elif place and _MOVING_TOOL.search(tool):
            hits.append(("destructive.move_protected", f"{tool} of {describe_place(place)}"))
        elif is_protected_file(directory, path, ctx):
            hits.append(("destructive.protected_file", f"{tool} {path}"))
    return hits
