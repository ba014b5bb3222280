"""JavaScript semantics the ports need: regular expressions, whitespace, trim, object key order.

`js_re(source, flags)` compiles a JavaScript regular expression (written exactly as in the
TypeScript source) into a Python one that matches the same strings: `\\s` is JavaScript's
whitespace set, `\\w` `\\d` `\\b` and case folding are ASCII-only, `.` stops at every JavaScript line
terminator (unless the `s` flag is given), `$` is the very end of the input, `[^]` is any character.
"""
from __future__ import annotations

import re
from typing import Any, Dict, List

#: JavaScript's WhiteSpace and LineTerminator characters (`\\s`, String.prototype.trim).
JS_SPACE = "\t\n\x0b\x0c\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_SPACE_CLASS = "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
_DOT = "[^\\n\\r\\u2028\\u2029]"
_cache: Dict[Any, "re.Pattern[str]"] = {}
_CACHE_MAX = 2048


def _translate(src: str, dotall: bool) -> str:
    out: List[str] = []
    in_class = False
    i = 0
    n = len(src)
    while i < n:
        c = src[i]
        if c == "\\" and i + 1 < n:
            e = src[i + 1]
            if e == "s":
                out.append(_SPACE_CLASS if in_class else f"[{_SPACE_CLASS}]")
            elif e == "S":
                if in_class:
                    raise ValueError("\\S inside a class is not supported")
                out.append(f"[^{_SPACE_CLASS}]")
            else:
                out.append(c + e)
            i += 2
            continue
        if not in_class and src.startswith("[\\s\\S]", i):
            out.append("(?s:.)")
            i += 6
            continue
        if in_class:
            if c == "]":
                in_class = False
            elif c == "[" or (c in "&~|" and src[i + 1 : i + 2] == c):
                c = "\\" + c
            out.append(c)
        elif c == "[":
            if src.startswith("[^]", i):
                out.append("(?s:.)")
                i += 3
                continue
            if src.startswith("[]", i):
                out.append("(?!)")
                i += 2
                continue
            in_class = True
            out.append(c)
            if src.startswith("[^", i):
                out.append("^")
                i += 1
        elif c == "." and not dotall:
            out.append(_DOT)
        elif c == "$":
            out.append("\\Z")
        elif c == "(" and src.startswith("(?<", i) and src[i + 3 : i + 4] not in ("=", "!"):
            out.append("(?P<")
            i += 3
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def js_re(source: str, flags: str = "") -> "re.Pattern[str]":
    key = (source, flags)
    hit = _cache.get(key)
    if hit is not None:
        return hit
    py = re.ASCII
    if "i" in flags:
        py |= re.I
    if "s" in flags:
        py |= re.S
    if "m" in flags:
        raise ValueError("the m flag is not supported")
    compiled = re.compile(_translate(source, "s" in flags), py)
    if len(_cache) >= _CACHE_MAX:
        # Patterns built from paths are one-offs: never let them grow the cache without bound.
        _cache.clear()
    _cache[key] = compiled
    return compiled


def js_trim(s: str) -> str:
    return s.strip(JS_SPACE)


def js_keys(obj: Dict[str, Any]) -> List[str]:
    """Own keys in JavaScript's order: array-index keys ascending, then the rest as inserted."""
    index = sorted((k for k in obj if _is_index(k)), key=int)
    return index + [k for k in obj if not _is_index(k)]


def _is_index(k: str) -> bool:
    return k.isascii() and k.isdigit() and (k == "0" or not k.startswith("0")) and int(k) < 4294967295



def _expand_replacement(repl: str, m: "re.Match[str]") -> str:
    """A String.prototype.replace replacement string: `$$`, `$&`, `` $` ``, `$'`, `$n`."""
    out: List[str] = []
    i = 0
    groups = m.re.groups
    while i < len(repl):
        c = repl[i]
        n = repl[i + 1 : i + 2]
        if c == "$" and n != "":
            if n == "$":
                out.append("$")
                i += 2
                continue
            if n == "&":
                out.append(m.group(0))
                i += 2
                continue
            if n == "`":
                out.append(m.string[: m.start()])
                i += 2
                continue
            if n == "'":
                out.append(m.string[m.end() :])
                i += 2
                continue
            if n.isascii() and n.isdigit():
                two = repl[i + 1 : i + 3]
                if len(two) == 2 and two.isascii() and two.isdigit() and 1 <= int(two) <= groups:
                    out.append(m.group(int(two)) or "")
                    i += 3
                    continue
                if 1 <= int(n) <= groups:
                    out.append(m.group(int(n)) or "")
                    i += 2
                    continue
        out.append(c)
        i += 1
    return "".join(out)


def js_replace(pattern: "re.Pattern[str]", s: str, repl: str, global_: bool) -> str:
    """s.replace(regex, replacementString), `g` flag or not."""
    return pattern.sub(lambda m: _expand_replacement(repl, m), s, count=0 if global_ else 1)
