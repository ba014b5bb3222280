"""Deciding a call (a port of libs/governance/src/decide.ts).

Order: the destructive tier (block unless an approved bypass covers the segment each hit is in),
then the snapshot's enforce rules (block > hold > redact), then warn/shadow rules (recorded, not
enforced: the decision stays allow). A command line is decided segment by segment: a rule counts
when it matches any segment, a bypass lowers only the segment it matches, and the strictest decision
wins. `destructive` reports the tier's match whatever the outcome.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

from ._addresses import host_rule_matches
from ._destructive import DestructiveHit, detect_destructive_hits
from ._disk import DiskAsks
from ._json import canonical_json
from ._policy import compile_pattern, is_regex_pattern, parse_time, pattern_test
from ._subjects import action_strings_of, canonical_tool_names, command_of, hosts_of, map_strings, path_forms, paths_of, sql_of, strings_of
from ._paths import PathContext
from ._tier_file_tools import file_tool_hits
from ._tier_segments import Segment, command_segments
from ._tier_sql import datastore_wipe, destructive_sql

_STRENGTH = {"block": 3, "hold": 2, "redact": 1}
Rule = Dict[str, Any]
Bypass = Dict[str, Any]


@dataclass
class _CallView:
    call: Dict[str, Any]
    tools: List[str]
    command: Optional[str]
    #: The command's segments; for any other call, one unit holding its canonical input.
    units: List[Segment]
    #: The whole command line, matched by a rule only when no single segment is.
    whole: Optional[Segment]


def _view(call: Dict[str, Any]) -> _CallView:
    command = command_of(call.get("input"))
    tools = canonical_tool_names(call["tool"], call.get("server"))
    if command is None:
        return _CallView(call, tools, command, [Segment([canonical_json(call.get("input"))])], None)
    units = command_segments(command, call.get("cwd"), call.get("home"))
    # A single command is its own whole; a compound line's whole can be matched but never bypassed.
    return _CallView(call, tools, command, units if units else [Segment([command])], Segment([command]) if len(units) > 1 else None)


def _any(pattern: str, values: List[str], path: bool = False, ignore_case: bool = False) -> bool:
    return any(pattern_test(pattern, v, path, ignore_case) for v in values)


def _rule_units(rule: Rule, v: _CallView) -> List[Segment]:
    """The units a rule matches (empty: it does not match the call)."""
    call = v.call
    if rule.get("tool") is not None and not _any(rule["tool"], v.tools):
        return []

    def whole(hit: bool) -> List[Segment]:
        return [v.whole if v.whole is not None else v.units[0]] if hit else []

    subject, pattern, inp = rule["subject"], rule["pattern"], call.get("input")
    if subject == "tool":
        return whole(_any(pattern, v.tools))
    if subject == "command":
        units = [] if v.command is None else [u for u in v.units if _any(pattern, u.forms)]
        return units if units or v.whole is None else whole(_any(pattern, v.whole.forms))
    if subject == "path":
        return whole(_any(pattern, [f for p in paths_of(inp) for f in path_forms(p, call.get("cwd"))], path=True))
    if subject == "content":
        return whole(_any(pattern, strings_of(inp)))
    if subject == "host":
        return whole(any(host_rule_matches(pattern, h) for h in hosts_of(inp)))
    return []


def _bypass_covers(b: Bypass, rule_id: str, tools: List[str], forms: List[str], now: float) -> bool:
    if not pattern_test(b["rule"], rule_id):
        return False
    if b.get("expires_at") is not None:
        expires = parse_time(b["expires_at"])
        if expires is not None and expires <= now:
            return False
    if b.get("tool") is not None and not _any(b["tool"], tools):
        return False
    return b.get("pattern") is None or _any(b["pattern"], forms)


def _redact(inp: Any, rules: List[Rule]) -> Any:
    for rule in rules:
        mark = f"[REDACTED:{rule['id']}]"
        if rule["subject"] == "content" and is_regex_pattern(rule["pattern"]):
            compiled = compile_pattern(rule["pattern"])
            inp = map_strings(inp, lambda s, c=compiled, m=mark: c.sub(m.replace("\\", "\\\\"), s))
        elif rule["subject"] == "tool":
            inp = map_strings(inp, lambda s, m=mark: m)
        else:
            p, is_path, ic = rule["pattern"], rule["subject"] == "path", rule["subject"] == "host"
            inp = map_strings(inp, lambda s, p=p, m=mark, a=is_path, b=ic: m if pattern_test(p, s, a, b) else s)
    return inp


def _resolve(matched: List[Dict[str, Any]], inp: Any, hits: List[DestructiveHit], hit_bypass: Optional[Bypass]) -> Dict[str, Any]:
    """Choose among matched rules: strongest unbypassed enforce rule, else a warn, else a shadow rule."""
    is_destructive = len(hits) > 0
    enforce = [m for m in matched if m["rule"]["mode"] == "enforce"]
    active = [m["rule"] for m in enforce if not m["bypass"]]
    ranked = sorted(active, key=lambda r: -_STRENGTH[r["action"]])
    top = ranked[0] if ranked else None
    if top and top["action"] != "redact":
        reason = top.get("reason") or f"{'blocked' if top['action'] == 'block' else 'held'} by rule {top['id']}"
        return {"decision": top["action"], "rule": top["id"], "mode": "enforce", "destructive": is_destructive, "reason": reason}
    if top:
        redact_rules = [r for r in active if r["action"] == "redact"]
        return {"decision": "redact", "rule": top["id"], "mode": "enforce", "destructive": is_destructive, "reason": top.get("reason") or f"redacted by rule {top['id']}", "redactedInput": _redact(inp, redact_rules)}
    observed = next((m for m in matched if m["rule"]["mode"] == "warn"), None) or next((m for m in matched if m["rule"]["mode"] == "shadow"), None)
    if observed:
        rule = observed["rule"]
        return {"decision": "allow", "rule": rule["id"], "mode": rule["mode"], "destructive": is_destructive, "reason": f"{rule['mode']}: {rule.get('reason') or 'rule ' + rule['id'] + ' matched'}"}
    bypassed = (hits[0].rule, hit_bypass) if hits else ((enforce[0]["rule"]["id"], enforce[0]["bypass"]) if enforce else None)
    if bypassed is not None:
        rule_id, b = bypassed
        assert b is not None
        return {"decision": "allow", "rule": rule_id, "mode": "enforce", "destructive": is_destructive, "reason": f"allowed by approved bypass {b['id']}: {b['reason']}", "bypass": b["id"]}
    return {"decision": "allow", "rule": None, "mode": None, "destructive": False, "reason": "no rule matched"}


def _is_mcp_tool(call: Dict[str, Any]) -> bool:
    return call.get("server") is not None or call["tool"].startswith("mcp__")


def _destructive_hits_of(v: _CallView, asks: Optional[DiskAsks] = None) -> List[DestructiveHit]:
    """Destructive hits of a call: its command line; what a file tool does to the paths it names; for an MCP tool, every string anywhere in its input."""
    cwd, home, disk = v.call.get("cwd"), v.call.get("home"), v.call.get("disk")
    mcp = _is_mcp_tool(v.call)
    hits: List[DestructiveHit] = detect_destructive_hits(v.command, cwd, home, disk, asks) if v.command is not None else []
    if v.command is not None and not mcp:
        return hits
    forms = [canonical_json(v.call.get("input"))]
    for rule, detail in file_tool_hits(v.call.get("tool", ""), v.call.get("input"), PathContext(cwd=cwd, home=home, disk=disk, asks=asks)):
        hits.append(DestructiveHit(rule, detail, forms))
    strings = action_strings_of(v.call.get("input")) if mcp else sql_of(v.call.get("input"))
    for s in strings[:256]:
        sql = destructive_sql(s)
        wipe = datastore_wipe(s)
        if sql:
            hits.append(DestructiveHit("destructive.sql_drop", sql, forms))
        elif wipe:
            hits.append(DestructiveHit("destructive.datastore_wipe", wipe, forms))
        elif mcp:
            # Any string of an MCP tool's input is read as a command line, by its words alone: a field
            # that names a file is not a script to read from disk.
            hits.extend(DestructiveHit(h.rule, h.detail, [*forms, *h.forms]) for h in detect_destructive_hits(s, cwd, home))
    return hits


def disk_questions(call: Dict[str, Any]) -> Dict[str, List[str]]:
    """What deciding this call would look up on disk, given what call["disk"] already holds (as disk.ts's diskQuestions)."""
    asks = DiskAsks()
    _destructive_hits_of(_view(call), asks)
    return {"paths": asks.paths, "files": asks.files, "commands": asks.commands}


def decide_tool_call(policy: Dict[str, Any], call: Dict[str, Any]) -> Dict[str, Any]:
    v = _view(call)
    now = time.time()

    def bypass_for(rule_id: str, forms: List[str]) -> Optional[Bypass]:
        return next((b for b in policy["bypasses"] if _bypass_covers(b, rule_id, v.tools, forms, now)), None)

    hits = _destructive_hits_of(v)
    open_hit = next((h for h in hits if not bypass_for(h.rule, h.forms)), None)
    if open_hit:
        return {"decision": "block", "rule": open_hit.rule, "mode": "enforce", "destructive": True, "reason": f"destructive command blocked ({open_hit.detail})"}
    matched: List[Dict[str, Any]] = []
    for rule in policy["rules"]:
        units = _rule_units(rule, v)
        if not units:
            continue
        covering = [None if u is v.whole else bypass_for(rule["id"], u.forms) for u in units]
        matched.append({"rule": rule, "bypass": covering[0] if all(covering) else None})
    return _resolve(matched, call.get("input"), hits, bypass_for(hits[0].rule, hits[0].forms) if hits else None)


def decide_egress(policy: Dict[str, Any], host: str) -> Dict[str, Any]:
    """An outbound connection to `host`, decided by the rules whose subject is `host`."""
    now = time.time()
    matched = [{"rule": r, "bypass": next((b for b in policy["bypasses"] if _bypass_covers(b, r["id"], [], [host], now)), None)} for r in policy["rules"] if r["subject"] == "host" and host_rule_matches(r["pattern"], host)]
    return _resolve(matched, host, [], None)


