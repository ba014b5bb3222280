"""Lexical helpers of the shell parser (a port of libs/governance/src/shell-text.ts): quoting
markers, parentheses matching, ANSI-C quoted strings."""
from __future__ import annotations

import re

from ._jsre import js_re

#: Quoted or escaped `$` and backtick: text, not expansions (restore_literals turns them back).
LITERAL_DOLLAR = "\u0002"
LITERAL_BACKTICK = "\u0003"


def literal(text: str) -> str:
    return text.replace("$", LITERAL_DOLLAR).replace("`", LITERAL_BACKTICK)


def restore_literals(text: str) -> str:
    return text.replace(LITERAL_DOLLAR, "$").replace(LITERAL_BACKTICK, "`")


def is_space(c: str) -> bool:
    return c in (" ", "\t", "\r")


def match_paren(src: str, start: int) -> int:
    """The index of the `)` closing a `(` opened just before `start`, skipping quotes and nesting."""
    depth = 1
    i = start
    n = len(src)
    while i < n:
        c = src[i]
        if c == "\\":
            i += 1
        elif c == "'":
            end = src.find("'", i + 1)
            i = n if end == -1 else end
        elif c == '"':
            i += 1
            while i < n and src[i] != '"':
                i += 2 if src[i] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return n


_ANSI_MAP = {"n": "\n", "t": "\t", "r": "\r", "a": "\x07", "b": "\b", "e": "\x1b", "f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"'}
_ANSI = js_re(r"\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)", "g")
_OCTAL = js_re(r"^[0-7]+$")


def ansi_c(body: str) -> str:
    def esc(m: "re.Match[str]") -> str:
        e = m.group(1)
        if e[0] == "x":
            # A bare `\x` is parseInt('') = NaN in JavaScript, which String.fromCharCode reads as 0.
            return chr(int(e[1:], 16)) if len(e) > 1 else "\u0000"
        if _OCTAL.search(e):
            return chr(int(e, 8))
        return _ANSI_MAP.get(e, e)

    return _ANSI.sub(esc, body)
