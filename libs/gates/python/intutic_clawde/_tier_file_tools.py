"""A file tool doing what the tier blocks in a shell (a port of libs/governance/src/tier/file-tools.ts).

Write, Edit, write_file, replace, apply_patch, an MCP server's write_file, move_file or delete ...:
writing, moving or deleting a system file or home configuration (protected_file, as
`echo ... > ~/.bashrc`), deleting the filesystem root, a system directory, home, the workspace root or
above it (rm_recursive, as `rm -r`), or moving one of them (move_protected, as `mv`). Which tools:
those whose name says they change files; a tool that reads, lists or searches what it names is not one.
A tool whose name carries no verb (`fs_op`, `do`) is judged by its input: an operation field that
writes, moves or deletes, over every path-like field.
"""
from __future__ import annotations

import re
from typing import Any, List, Tuple

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


#: Fields that say what a verbless tool does (`fs_op {op: "write"}`), and fields that name a path.
_OPERATION_KEY = js_re(r"^(op|operation|action|mode|method|verb|kind|type|command|cmd|task)$", "i")
_PATH_KEY = js_re(r"path|file|target|dest|src|source|from|^to$|dir|folder|location|uri|name", "i")
_PATH_VALUE = js_re(r"^(~|\/|\.\.?\/)")
_FILE_URL = js_re(r"^file:\/\/")
_OP_DELETE = js_re(r"^(rm|rmdir|unlink|del|erase|destroy|drop)$", "i")
_OP_MOVE = js_re(r"^mv$", "i")
_OP_WRITE = js_re(r"^(cp|put|touch|set)$", "i")
_COPY_OP = js_re(r"copy|cp\b", "i")
_FROM_KEY = js_re(r"^(from|src|source)", "i")


def _op_verb(op: str) -> str:
    """Shell verbs as operation values (`{action: "rm"}`), as the words the tool-name patterns know."""
    if _OP_DELETE.search(op):
        return f"delete ({op})"
    if _OP_MOVE.search(op):
        return "move (mv)"
    if _OP_WRITE.search(op):
        return f"write ({op})"
    return op


def _fields_of(inp: Any, ops: List[str], paths: List[Tuple[str, str]], depth: int = 0) -> None:
    """A verbless tool's operations and path-like values, from its input's fields (nested a few levels)."""
    if depth > 3 or not isinstance(inp, (dict, list)):
        return
    entries = inp.items() if isinstance(inp, dict) else []
    for key, value in entries:
        for v in value if isinstance(value, list) else [value]:
            if isinstance(v, str):
                if _OPERATION_KEY.search(key):
                    ops.append(v)
                if _PATH_KEY.search(key) or _PATH_VALUE.search(v):
                    paths.append((key, _FILE_URL.sub("", v, count=1)))
            else:
                _fields_of(v, ops, paths, depth + 1)


#: A tool that destroys a whole remote resource by its name (`delete_repository`, `drop_database` …).
_TEARDOWN_TOOL = js_re(
    r"(delete|destroy|drop|remove|purge|wipe|terminate)[_-]?(repo|repository|project|organization|org|database|db|bucket|cluster|namespace|table|schema|collection|environment|app|application|service|instance|volume|stack|workspace|account|index)s?$",
    "i",
)
_MCP_PREFIX = js_re(r"^mcp__[^_]+(?:_[^_]+)*?__")
#: A tool that empties a datastore by its name (`flushall`, `truncate_table`, `delete_all_keys`, `reset_database` …).
_WIPE_TOOL = js_re(
    r"(^|[_-])(flush[_-]?all|flush[_-]?db|truncate([_-]?(table|tables|all))?|(delete|drop|remove|purge|clear)[_-]?all([_-][a-z]+)?|reset[_-]?(database|db))$",
    "i",
)


def file_tool_hits(tool: str, inp: Any, ctx: PathContext) -> List[VerbHit]:
    """The tier's hits for a file tool's call."""
    bare = _MCP_PREFIX.sub("", tool, count=1)
    if _TEARDOWN_TOOL.search(bare):
        return [("destructive.infra_teardown", f"{tool}: a whole remote resource destroyed")]
    if _WIPE_TOOL.search(bare):
        return [("destructive.datastore_wipe", f"{tool}: a datastore emptied")]
    if not _WRITING_TOOL.search(tool):
        # A tool whose name carries no verb is judged by its input: an operation field that writes,
        # moves or deletes, over every path-like field.
        ops: List[str] = []
        named: List[Tuple[str, str]] = []
        _fields_of(inp, ops, named)
        op = next((o for o in map(_op_verb, ops) if _WRITING_TOOL.search(o)), None)
        if op is None:
            return []
        # A copy only reads what it copies from: its destination is what it writes.
        written = [v for key, v in named if not (_COPY_OP.search(op) and _FROM_KEY.search(key))]
        return _verb_hits(f"{tool} {op}", op, written, ctx)
    patched = [m.group(1).strip() for s in strings_of(inp) for m in _PATCH_FILE.finditer(s)] if _PATCH_TOOL.search(tool) else []
    return _verb_hits(tool, tool, [*paths_of(inp), *patched], ctx)


def _verb_hits(what: str, verb: str, named: List[str], ctx: PathContext) -> List[VerbHit]:
    directory = workspace_of(ctx)
    paths: List[str] = []
    for path in named:
        if path not in paths:
            paths.append(path)
    hits: List[VerbHit] = []
    for path in paths:
        place = classify_target(directory, path, ctx)
        if place and _DELETING_TOOL.search(verb):
            hits.append(("destructive.rm_recursive", f"{what} of {describe_place(place)}"))
        elif place and _MOVING_TOOL.search(verb):
            hits.append(("destructive.move_protected", f"{what} of {describe_place(place)}"))
        elif is_protected_file(directory, path, ctx):
            hits.append(("destructive.protected_file", f"{what} {path}"))
    return hits
