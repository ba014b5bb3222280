"""A file tool writing a system file or home configuration (a port of libs/governance/src/tier/file-tools.ts).

Write, Edit, write_file, replace, apply_patch, an MCP server's write_file or move_file ... changing a
system file or home configuration: the same protected_file hit the tier gives `echo ... > ~/.bashrc`,
whichever tool the agent does it with. A tool that reads, lists or searches what it names is not one:
only a tool whose name says it changes files.
"""
from __future__ import annotations

import re
from typing import Any, List

from ._jsre import js_re
from ._paths import PathContext, is_protected_file, workspace_of
from ._subjects import paths_of, strings_of

_WRITING_TOOL = js_re(r"write|edit|replace|patch|create|save|append|insert|move|rename|delete|remove|overwrite|truncate|copy", "i")
_PATCH_TOOL = js_re(r"patch", "i")
#: The files an apply_patch body names (`*** Update File: path`, `*** Move to: path`).
_PATCH_FILE = re.compile(r"^\*\*\* (?:(?:Add|Update|Delete) File|Move to): (.+)$", re.M)


def protected_file_writes(tool: str, inp: Any, ctx: PathContext) -> List[str]:
    """The protected files a file tool's call would change, as `<tool> <path>` details."""
    if not _WRITING_TOOL.search(tool):
        return []
    patched = [m.group(1).strip() for s in strings_of(inp) for m in _PATCH_FILE.finditer(s)] if _PATCH_TOOL.search(tool) else []
    directory = workspace_of(ctx)
    seen: List[str] = []
    for path in [*paths_of(inp), *patched]:
        if path not in seen:
            seen.append(path)
    return [f"{tool} {path}" for path in seen if is_protected_file(directory, path, ctx)]
