"""JSON helpers shared with the TypeScript side: canonical JSON exactly as JavaScript's
JSON.stringify writes it with keys sorted (so the call hash is identical in both SDKs), and a
parser that records the line of every value (so policy errors can say file:line).
"""
from __future__ import annotations

import hashlib
import json
import math
import re
from decimal import Decimal
from typing import Any, Callable, Dict, List, Tuple


def _js_number(x: float) -> str:
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return str(x)
    if math.isnan(x) or math.isinf(x):
        return "null"
    if x == 0:
        return "0"
    if x.is_integer() and abs(x) < 1e21:
        return str(int(x))
    r = repr(x)
    if 1e-6 <= abs(x) < 1e21:
        return format(Decimal(r), "f") if "e" in r else r
    mantissa, _, exp = r.partition("e")
    sign = "-" if exp.startswith("-") else "+"
    return f"{mantissa}e{sign}{int(exp.lstrip('+-'))}"


def _js_string(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def canonical_json(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return _js_number(value)
    if isinstance(value, str):
        return _js_string(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(canonical_json(v) for v in value) + "]"
    if isinstance(value, dict):
        # JavaScript sorts keys by UTF-16 code units.
        keys = sorted(value.keys(), key=lambda k: k.encode("utf-16-be"))
        return "{" + ",".join(f"{_js_string(k)}:{canonical_json(value[k])}" for k in keys) + "}"
    return _js_string(str(value))


def hash_tool_input(tool: str, tool_input: Any) -> str:
    return hashlib.sha256(canonical_json([tool, tool_input]).encode("utf-8")).hexdigest()[:32]


class JsonSyntaxError(ValueError):
    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


_NUMBER = re.compile(r"-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?|true|false|null")


def parse_json_with_lines(text: str) -> Tuple[Any, Callable[[List[Any]], int]]:
    lines: Dict[str, int] = {}
    st = {"i": 0, "line": 1, "line_start": 0}

    def fail(what: str):
        raise JsonSyntaxError(what, st["line"], st["i"] - st["line_start"] + 1)

    def ws() -> None:
        while st["i"] < len(text) and text[st["i"]] in " \t\r\n":
            if text[st["i"]] == "\n":
                st["line"] += 1
                st["line_start"] = st["i"] + 1
            st["i"] += 1

    def string() -> str:
        start = st["i"]
        st["i"] += 1
        while st["i"] < len(text) and text[st["i"]] != '"':
            if text[st["i"]] == "\n":
                fail("unterminated string")
            st["i"] += 2 if text[st["i"]] == "\\" else 1
        if st["i"] >= len(text):
            fail("unterminated string")
        st["i"] += 1
        try:
            return json.loads(text[start : st["i"]])
        except ValueError:
            fail("invalid string escape")

    def value(path: str) -> Any:
        ws()
        lines[path] = st["line"]
        c = text[st["i"]] if st["i"] < len(text) else ""
        join = (lambda k: k) if path == "" else (lambda k: f"{path}/{k}")
        if c == "{":
            st["i"] += 1
            obj: Dict[str, Any] = {}
            ws()
            if text[st["i"] : st["i"] + 1] == "}":
                st["i"] += 1
                return obj
            while True:
                ws()
                if text[st["i"] : st["i"] + 1] != '"':
                    fail('expected a "key"')
                key = string()
                ws()
                if text[st["i"] : st["i"] + 1] != ":":
                    fail(f"expected ':' after \"{key}\"")
                st["i"] += 1
                obj[key] = value(join(key))
                ws()
                c2 = text[st["i"] : st["i"] + 1]
                if c2 == ",":
                    st["i"] += 1
                elif c2 == "}":
                    st["i"] += 1
                    return obj
                else:
                    fail("expected ',' or '}'")
        if c == "[":
            st["i"] += 1
            arr: List[Any] = []
            ws()
            if text[st["i"] : st["i"] + 1] == "]":
                st["i"] += 1
                return arr
            while True:
                arr.append(value(join(str(len(arr)))))
                ws()
                c2 = text[st["i"] : st["i"] + 1]
                if c2 == ",":
                    st["i"] += 1
                elif c2 == "]":
                    st["i"] += 1
                    return arr
                else:
                    fail("expected ',' or ']'")
        if c == '"':
            return string()
        m = _NUMBER.match(text, st["i"])
        if not m or not c:
            fail("unexpected end of file" if not c else f"unexpected character '{c}'")
        st["i"] = m.end()
        return json.loads(m.group(0))

    result = value("")
    ws()
    if st["i"] < len(text):
        fail("unexpected text after the JSON value")

    def line_of(path: List[Any]) -> int:
        for n in range(len(path), -1, -1):
            key = "/".join(str(p) for p in path[:n])
            if key in lines:
                return lines[key]
        return 1

    return result, line_of
