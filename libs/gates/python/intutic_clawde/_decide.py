"""Deciding a call (a port of libs/governance/src/decide.ts, subjects.ts and names.ts).

Order: the destructive tier (block unless an approved bypass covers it), then the snapshot's
enforce rules (block > hold > redact; a bypass lets a match through), then warn/shadow rules
(recorded, not enforced). `destructive` reports the tier's match whatever the outcome.
"""
from __future__ import annotations

import os
import re
import time
from typing import Any, Callable, Dict, List, Optional
from urllib.parse import urlparse

from ._destructive import SQL_DROP, detect_destructive_command
from ._json import canonical_json
from ._normalize import normalized_segments
from ._policy import compile_pattern, is_regex_pattern, parse_time, pattern_test
from ._shell import parse_shell

_PATH_KEYS = ("file_path", "path", "notebook_path", "filePath", "target_file", "filename", "source", "destination", "directory", "dir")
_SQL_KEYS = ("query", "sql", "statement", "statements")
_STRENGTH = {"block": 3, "hold": 2, "redact": 1}
_MCP = re.compile(r"^mcp__(.+?)__(.+)$")


def _quote(word: str) -> str:
    return word if re.fullmatch(r"[A-Za-z0-9_@%+=:,./-]+", word) else "'" + word.replace("'", "'\\''") + "'"


def command_of(inp: Any) -> Optional[str]:
    if not isinstance(inp, dict):
        return None
    for key in ("command", "cmd"):
        v = inp.get(key)
        if isinstance(v, str):
            return v
        if isinstance(v, list) and v and all(isinstance(w, str) for w in v):
            return " ".join(_quote(w) for w in v)
    return None


def _paths_of(inp: Any) -> List[str]:
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


def _strings_of(inp: Any, depth: int = 0) -> List[str]:
    if depth > 32:
        return []
    if isinstance(inp, str):
        return [inp]
    if isinstance(inp, list):
        return [s for v in inp for s in _strings_of(v, depth + 1)]
    if isinstance(inp, dict):
        return [s for v in inp.values() for s in _strings_of(v, depth + 1)]
    return []


def _hosts_of(inp: Any) -> List[str]:
    if not isinstance(inp, dict):
        return []
    out = []
    for key in ("url", "uri", "endpoint"):
        v = inp.get(key)
        if isinstance(v, str):
            host = urlparse(v).hostname
            if host:
                out.append(host)
    return out


def _map_strings(inp: Any, fn: Callable[[str], str], depth: int = 0) -> Any:
    if depth > 32:
        return inp
    if isinstance(inp, str):
        return fn(inp)
    if isinstance(inp, list):
        return [_map_strings(v, fn, depth + 1) for v in inp]
    if isinstance(inp, dict):
        return {k: _map_strings(v, fn, depth + 1) for k, v in inp.items()}
    return inp


def canonical_tool_names(tool: str, server: Optional[str] = None) -> List[str]:
    m = _MCP.match(tool)
    if m:
        return [tool, m.group(2)]
    return [tool, f"mcp__{server}__{tool}"] if server is not None else [tool]


def _path_forms(path: str, cwd: Optional[str]) -> List[str]:
    forms = [path]
    if not cwd or not os.path.isabs(cwd):
        return forms
    absolute = os.path.normpath(path if os.path.isabs(path) else os.path.join(cwd, path))
    forms.append(absolute)
    rel = os.path.relpath(absolute, cwd)
    if rel != "." and not rel.startswith(".."):
        forms.append(rel)
    return list(dict.fromkeys(forms))


def _any(pattern: str, values: List[str], path: bool = False, ignore_case: bool = False) -> bool:
    return any(pattern_test(pattern, v, path, ignore_case) for v in values)


def _rule_matches(rule: Dict[str, Any], call: Dict[str, Any], forms: List[str]) -> bool:
    tools = canonical_tool_names(call["tool"], call.get("server"))
    if "tool" in rule and not _any(rule["tool"], tools):
        return False
    subject, pattern, inp = rule["subject"], rule["pattern"], call.get("input")
    if subject == "tool":
        return _any(pattern, tools)
    if subject == "command":
        return _any(pattern, forms)
    if subject == "path":
        return _any(pattern, [f for p in _paths_of(inp) for f in _path_forms(p, call.get("cwd"))], path=True)
    if subject == "content":
        return _any(pattern, _strings_of(inp))
    return _any(pattern, _hosts_of(inp), ignore_case=True)


def _bypass_covers(b: Dict[str, Any], rule_id: str, tools: List[str], forms: List[str], now: float) -> bool:
    if not pattern_test(b["rule"], rule_id):
        return False
    if "expires_at" in b and (parse_time(b["expires_at"]) or 0) <= now:
        return False
    if "tool" in b and not _any(b["tool"], tools):
        return False
    return "pattern" not in b or _any(b["pattern"], forms)


def _redact(inp: Any, rules: List[Dict[str, Any]]) -> Any:
    for rule in rules:
        mark = f"[REDACTED:{rule['id']}]"
        if rule["subject"] == "content" and is_regex_pattern(rule["pattern"]):
            compiled = compile_pattern(rule["pattern"])
            inp = _map_strings(inp, lambda s, c=compiled, m=mark: c.sub(m.replace("\\", "\\\\"), s))
        elif rule["subject"] == "tool":
            inp = _map_strings(inp, lambda s, m=mark: m)
        else:
            p, is_path, ic = rule["pattern"], rule["subject"] == "path", rule["subject"] == "host"
            inp = _map_strings(inp, lambda s, p=p, m=mark, a=is_path, b=ic: m if pattern_test(p, s, a, b) else s)
    return inp


def _resolve(matched: List[Dict[str, Any]], bypass_of: Callable[[str], Optional[Dict[str, Any]]], inp: Any, destructive: Optional[tuple]) -> Dict[str, Any]:
    is_destructive = destructive is not None
    enforce = [r for r in matched if r["mode"] == "enforce"]
    active = sorted((r for r in enforce if not bypass_of(r["id"])), key=lambda r: -_STRENGTH[r["action"]])
    top = active[0] if active else None
    if top and top["action"] != "redact":
        reason = top["reason"] or f"{'blocked' if top['action'] == 'block' else 'held'} by rule {top['id']}"
        return {"decision": top["action"], "rule": top["id"], "mode": "enforce", "destructive": is_destructive, "reason": reason}
    if top:
        redact_rules = [r for r in active if r["action"] == "redact"]
        return {"decision": "redact", "rule": top["id"], "mode": "enforce", "destructive": is_destructive, "reason": top["reason"] or f"redacted by rule {top['id']}", "redactedInput": _redact(inp, redact_rules)}
    observed = next((r for r in matched if r["mode"] == "warn"), None) or next((r for r in matched if r["mode"] == "shadow"), None)
    if observed:
        return {"decision": "allow", "rule": observed["id"], "mode": observed["mode"], "destructive": is_destructive, "reason": f"{observed['mode']}: {observed['reason'] or 'rule ' + observed['id'] + ' matched'}"}
    bypassed = destructive[0] if destructive else (enforce[0]["id"] if enforce else None)
    if bypassed is not None:
        b = bypass_of(bypassed)
        return {"decision": "allow", "rule": bypassed, "mode": "enforce", "destructive": is_destructive, "reason": f"allowed by approved bypass {b['id']}: {b['reason']}", "bypass": b["id"]}
    return {"decision": "allow", "rule": None, "mode": None, "destructive": False, "reason": "no rule matched"}


def decide_tool_call(policy: Dict[str, Any], call: Dict[str, Any]) -> Dict[str, Any]:
    command = command_of(call.get("input"))
    forms = [] if command is None else [command] + normalized_segments(parse_shell(command))
    tools = canonical_tool_names(call["tool"], call.get("server"))
    subject_forms = forms if command is not None else [canonical_json(call.get("input"))]
    now = time.time()

    def bypass_of(rule_id: str) -> Optional[Dict[str, Any]]:
        return next((b for b in policy["bypasses"] if _bypass_covers(b, rule_id, tools, subject_forms, now)), None)

    if command is not None:
        destructive = detect_destructive_command(command, call.get("cwd"), call.get("home"))
    else:
        sql = next((s for k in _SQL_KEYS for s in [call.get("input", {}).get(k) if isinstance(call.get("input"), dict) else None] if isinstance(s, str) and SQL_DROP.search(s)), None)
        destructive = ("destructive.sql_drop", SQL_DROP.search(sql).group(0)) if sql else None
    if destructive and not bypass_of(destructive[0]):
        return {"decision": "block", "rule": destructive[0], "mode": "enforce", "destructive": True, "reason": f"destructive command blocked ({destructive[1]})"}
    matched = [r for r in policy["rules"] if _rule_matches(r, call, forms)]
    return _resolve(matched, bypass_of, call.get("input"), destructive)
