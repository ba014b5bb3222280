"""What a rule subject looks at in a tool call's input (a port of libs/governance/src/subjects.ts
and names.ts): the shell command it runs, the paths it touches, every string it carries, the hosts
its URLs name, and the names a call is known by.
"""
from __future__ import annotations

import os
import re
from typing import Any, Callable, Collection, List, Optional
from urllib.parse import urlparse

from ._jsre import js_keys, js_re

_PATH_KEYS = ("file_path", "path", "notebook_path", "filePath", "target_file", "filename", "source", "destination", "directory", "dir")
_SQL_KEYS = ("query", "sql", "statement", "statements")
_MCP = js_re(r"^mcp__(.+?)__(.+)$")
_PLAIN_WORD = re.compile(r"[A-Za-z0-9_@%+=:,./-]+")


def _quote(word: str) -> str:
    return word if _PLAIN_WORD.fullmatch(word) else "'" + word.replace("'", "'\\''") + "'"


def command_of(inp: Any) -> Optional[str]:
    """The shell command line a call runs, or None for a call that runs none."""
    if not isinstance(inp, dict):
        return None
    args = next((inp[k] for k in ("args", "argv", "arguments") if inp.get(k) is not None), None)
    arg_words = [_quote(w) for w in args] if isinstance(args, list) and all(isinstance(w, str) for w in args) else []
    for key in ("command", "cmd"):
        v = inp.get(key)
        if isinstance(v, str):
            return " ".join([v, *arg_words])
        if isinstance(v, list) and v and all(isinstance(w, str) for w in v):
            return " ".join(_quote(w) for w in v)
    return None


def paths_of(inp: Any) -> List[str]:
    """Paths the call names, as written."""
    if not isinstance(inp, dict):
        return []
    out = []
    for key in _PATH_KEYS + ("paths",):
        v = inp.get(key)
        if isinstance(v, str) and v:
            out.append(v)
        elif isinstance(v, list):
            out.extend(p for p in v if isinstance(p, str) and p)
    return out


def sql_of(inp: Any) -> List[str]:
    """SQL text handed to a database tool (`query`, `sql`, `statement`)."""
    if not isinstance(inp, dict):
        return []
    return [v for v in (inp.get(k) for k in _SQL_KEYS) if isinstance(v, str)]


def _walk_strings(inp: Any, skip: Collection[str], out: List[str], depth: int) -> List[str]:
    """Every string value in the input, depth-first (object keys in JavaScript's order), but those under a key of `skip`."""
    if depth > 32:
        return out
    if isinstance(inp, str):
        out.append(inp)
    elif isinstance(inp, list):
        for v in inp:
            _walk_strings(v, skip, out, depth + 1)
    elif isinstance(inp, dict):
        for k in js_keys(inp):
            if k not in skip:
                _walk_strings(inp[k], skip, out, depth + 1)
    return out


def strings_of(inp: Any) -> List[str]:
    """Every string value in the input, depth-first (object keys in JavaScript's order)."""
    return _walk_strings(inp, (), [], 0)


# Fields of prose a person reads (an issue's title, a commit message): text about commands, not commands.
_PROSE_KEYS = {"title", "body", "description", "summary", "subject", "comment", "message", "commit_message", "commitMessage", "note", "notes"}


def action_strings_of(inp: Any) -> List[str]:
    """Every string value in the input but those of prose fields, depth-first: what an MCP tool may run or send."""
    return _walk_strings(inp, _PROSE_KEYS, [], 0)


def hosts_of(inp: Any) -> List[str]:
    """Hosts of the URLs the input names (`url`, `uri`, `endpoint`)."""
    if not isinstance(inp, dict):
        return []
    out = []
    for key in ("url", "uri", "endpoint"):
        v = inp.get(key)
        if isinstance(v, str):
            try:
                host = urlparse(v).hostname
            except ValueError:
                host = None
            if host:
                out.append(host)
    return out


def map_strings(inp: Any, fn: Callable[[str], str], depth: int = 0) -> Any:
    """A copy of the input with every string passed through `fn`."""
    if depth > 32:
        return inp
    if isinstance(inp, str):
        return fn(inp)
    if isinstance(inp, list):
        return [map_strings(v, fn, depth + 1) for v in inp]
    if isinstance(inp, dict):
        return {k: map_strings(inp[k], fn, depth + 1) for k in js_keys(inp)}
    return inp


def canonical_tool_names(tool: str, server: Optional[str] = None) -> List[str]:
    m = _MCP.match(tool)
    if m:
        return [tool, m.group(2)]
    return [tool, f"mcp__{server}__{tool}"] if server is not None else [tool]


def path_forms(path: str, cwd: Optional[str]) -> List[str]:
    forms = [path]
    if not cwd or not os.path.isabs(cwd):
        return forms
    absolute = os.path.normpath(path if os.path.isabs(path) else os.path.join(cwd, path))
    forms.append(absolute)
    rel = os.path.relpath(absolute, cwd)
    if rel != "." and not rel.startswith(".."):
        forms.append(rel)
    return list(dict.fromkeys(forms))
