"""What `printf FORMAT ARGS…` and `echo -e` print (a port of libs/governance/src/tier/printf.ts).

So a command word spelled in escapes (`$(printf "\\x72m")`, `$(printf 'r%s' m)`) is read as the word it makes.
"""
from __future__ import annotations

import re
from typing import Sequence

_ESCAPES = re.compile(r"\\(x[0-9a-fA-F]{1,2}|0?[0-7]{1,3}|u[0-9a-fA-F]{1,4}|.)")
_SPEC = re.compile(r"%(%|[-+ #0]*\d*(?:\.\d+)?([sbdiouxXcqfeg]))")
_OCTAL = re.compile(r"^[0-7]+$")
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "a": "\x07", "b": "\b", "e": "\x1b", "f": "\f", "v": "\v", "\\": "\\", '"': '"', "'": "'"}


def printf_escapes(s: str) -> str:
    """Backslash escapes as printf's format (and `%b`, `echo -e`) reads them."""

    def one(m: "re.Match[str]") -> str:
        e = m.group(1)
        if e[0] in "xu":
            return chr(int(e[1:], 16)) if len(e) > 1 else m.group(0)
        if _OCTAL.match(e):
            return chr(int(e, 8))
        return _SIMPLE.get(e, m.group(0))

    return _ESCAPES.sub(one, s)


def printf_output(fmt: str, args: Sequence[str]) -> str:
    """printf's output: the format applied to the arguments, repeated while arguments remain."""
    out = ""
    rest = list(args)
    for _ in range(16):
        used = [0]

        def spec(m: "re.Match[str]") -> str:
            if m.group(1) == "%":
                return "%"
            arg = rest[used[0]] if used[0] < len(rest) else ""
            used[0] += 1
            if m.group(2) == "b":
                return printf_escapes(arg)
            if m.group(2) == "c":
                return arg[:1]
            return arg

        out += _SPEC.sub(spec, fmt)
        rest = rest[used[0] :]
        if used[0] == 0 or not rest:
            break
    return printf_escapes(out)
