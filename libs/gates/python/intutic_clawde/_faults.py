"""Fault injection after an allow (a port of libs/gates/src/faults.ts and libs/faults/src/match.ts).

A pure step over the shared state. Hold semantics follow the spec: an identical retry (same tool,
same input hash) is held again until delay_s has passed since the first refusal; the first retry
after that is released (delay) or denied (hold_then_deny), and the hold is over. One hold is one
injection: its retries neither count as matching calls nor inject again.
"""
from __future__ import annotations

import re
from typing import Any, Dict, Optional

GATE_FAULTS = ("tool.error", "permission.deny_or_delay")
_MCP = re.compile(r"^mcp__(.+?)__(.+)$")


def _pattern_matches(pattern: str, value: str) -> bool:
    if pattern == "*":
        return True
    if pattern.startswith("*"):
        return value.endswith(pattern[1:])
    return pattern == value


def _tool_matches(pattern: str, tool: str, server: Optional[str]) -> bool:
    if _pattern_matches(pattern, tool):
        return True
    m = _MCP.match(tool)
    canonical = m.group(2) if m else tool
    if _pattern_matches(pattern, canonical):
        return True
    split = _MCP.match(pattern)
    return bool(split and server is not None and split.group(1) == server and _pattern_matches(split.group(2), canonical))


def _applies(fault: Dict[str, Any], call: Dict[str, Any]) -> bool:
    if fault["id"] not in GATE_FAULTS or (fault["id"] == "tool.error" and call["mcp"]):
        return False
    match = fault.get("match") or {}
    if "host" in match or "model" in match:
        return False
    return "tool" not in match or _tool_matches(match["tool"], call["tool"], call.get("server"))


def apply_faults(state: Dict[str, Any], plan: Dict[str, Any], call: Dict[str, Any], now_ms: float) -> Dict[str, Any]:
    """Returns {"kind": none|error|deny|held|released, "fault", "injected", "hold_id"?, "message"?}."""
    key = f"{call['tool']}\u0000{call['input_hash']}"
    hold = state["holds"].get(key)
    if hold:
        fault = next(f for f in plan["faults"] if f["index"] == hold["fault_index"])
        if now_ms - hold["first_refusal_ms"] < hold["delay_s"] * 1000:
            hold["refusals"] += 1
            return {"kind": "held", "fault": fault, "hold_id": hold["hold_id"], "injected": False}
        del state["holds"][key]
        kind = "released" if hold["mode"] == "delay" else "deny"
        return {"kind": kind, "fault": fault, "hold_id": hold["hold_id"], "injected": False}
    chosen = None
    for fault in plan["faults"]:
        if not _applies(fault, call):
            continue
        counter = state["counters"].get(str(fault["index"]), {"seen": 0, "injected": 0})
        times = fault.get("times")
        inject = counter["seen"] >= fault.get("after_calls", 0) and (times is None or counter["injected"] < times)
        if inject and chosen is None:
            chosen = fault
            state["counters"][str(fault["index"])] = {"seen": counter["seen"] + 1, "injected": counter["injected"] + 1}
        else:
            state["counters"][str(fault["index"])] = {"seen": counter["seen"] + 1, "injected": counter["injected"]}
    if chosen is None:
        return {"kind": "none", "injected": False}
    options = chosen.get("options") or {}
    if chosen["id"] == "tool.error":
        return {"kind": "error", "fault": chosen, "message": str(options.get("message", "the tool call failed")), "injected": True}
    mode = options.get("mode", "deny")
    if mode not in ("delay", "hold_then_deny"):
        return {"kind": "deny", "fault": chosen, "injected": True}
    state["holds_created"] += 1
    hold_id = f"{plan['run_id']}:hold-{state['holds_created']}"
    state["holds"][key] = {
        "hold_id": hold_id,
        "fault_index": chosen["index"],
        "tool": call["tool"],
        "input_hash": call["input_hash"],
        "mode": mode,
        "delay_s": float(options.get("delay_s", 0)),
        "first_refusal_ms": now_ms,
        "refusals": 1,
    }
    return {"kind": "held", "fault": chosen, "hold_id": hold_id, "injected": True}
