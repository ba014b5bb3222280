"""A lean events-file writer producing lines the events schema accepts (libs/events/src/schema.ts):
free-text fields are clipped to the schema's limits and each line is one O_APPEND write.
"""
from __future__ import annotations

import json
import os
from typing import Any, Dict

MAX_LINE_BYTES = 3800
_LIMITS = {"tool": 300, "target": 300, "reason": 500, "detail": 500, "rule": 200, "call_id": 200, "input_hash": 100, "hold_id": 100, "harness": 60, "server": 200, "run_id": 100, "fault_id": 60}


def event_line(event: Dict[str, Any], now_ms: float) -> str:
    out: Dict[str, Any] = {"v": 1, "ts": int(now_ms)}
    for key, value in event.items():
        if value is None and key not in ("rule", "mode"):
            continue
        limit = _LIMITS.get(key)
        if isinstance(value, str) and limit is not None and len(value) > limit:
            value = value[: limit - 1] + "\u2026"
        out[key] = value
    line = json.dumps(out, ensure_ascii=False, separators=(",", ":"))
    if len(line.encode("utf-8")) > MAX_LINE_BYTES:
        for key in ("reason", "detail", "target", "tool", "server", "call_id", "rule", "harness", "hold_id", "run_id"):
            if isinstance(out.get(key), str):
                out[key] = out[key][:60] + "\u2026"
        line = json.dumps(out, ensure_ascii=False, separators=(",", ":"))
    return line + "\n"


def append_line(path: str, line: str) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode("utf-8"))
    finally:
        os.close(fd)
