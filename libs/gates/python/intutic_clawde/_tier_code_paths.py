"""The literals, argument lists and paths of interpreter code (a port of libs/governance/src/tier/code-paths.ts).

Read without running it: a string in any of the languages' quotes, a call's arguments split at
top-level commas, and the path an argument expression names (a literal, home in any spelling, the
cwd, a join or a concatenation of those), UNKNOWN when it is anything else.
"""
from __future__ import annotations

import re
from typing import List, Mapping, Optional

from ._jsre import js_re, js_replace, js_trim
from ._paths import UNKNOWN

STRING = r"""(?:'''[\s\S]*?'''|\"\"\"[\s\S]*?\"\"\"|'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\x60(?:[^\x60\\]|\\.)*\x60)"""
LITERAL = js_re(r"^\s*[frbuFRBU]{0,2}(" + STRING + ")")
_ESCAPE = js_re(r"\\(.)", "g")


def unquote(lit: str) -> str:
    body = lit[3:-3] if lit.startswith("'''") or lit.startswith('"""') else lit[1:-1]
    return _ESCAPE.sub(lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


def split_top_level(text: str, separator: str, closes: bool) -> List[str]:
    """`text` cut at each separator outside strings and brackets.

    `separator` is a pattern for one separator token; with `closes`, a closing bracket nothing
    opened ends the text (a call's arguments).
    """
    out: List[str] = []
    depth = 0
    start = 0
    for m in js_re(STRING + r"|[()[\]{}]|" + separator, "g").finditer(text):
        t = m.group(0)
        if t in ("(", "[", "{"):
            depth += 1
        elif t in (")", "]", "}"):
            depth -= 1
            if depth < 0 and closes:
                out.append(text[start : m.start()])
                return out
        elif depth == 0 and t[:1] not in ("'", '"', "`"):
            # Neither a bracket nor a string: a separator (which may look around it: PHP's `f()."/x"`).
            out.append(text[start : m.start()])
            start = m.end()
    out.append(text[start:])
    return out


def split_args(text: str) -> List[str]:
    """Split the text of call arguments at top-level commas."""
    return split_top_level(text, ",", True)


_HOME_EXPR = js_re(r"""^(os\.path\.expanduser\(\s*['"]~['"]\s*\)|os\.homedir\(\)|require\(['"](node:)?os['"]\)\.homedir\(\)|process\.env\.HOME|process\.env\[['"]HOME['"]\]|Path\.home\(\)|pathlib\.Path\.home\(\)|Dir\.home|ENV\[['"]HOME['"]\]|\$ENV\{HOME\}|os\.environ\[['"]HOME['"]\]|os\.getenv\(['"]HOME['"]\)|getenv\(['"]HOME['"]\)|\$_SERVER\[['"]HOME['"]\]|expanduser\(['"]~['"]\))$""")
_CWD_EXPR = js_re(r"""^(os\.getcwd\(\)|process\.cwd\(\)|Dir\.pwd|getcwd\(\)|Path\.cwd\(\)|pathlib\.Path\.cwd\(\)|Path\(\)|__dirname|['"]\.['"])$""")
_PATH_CTOR = js_re(r"^(?:Path|pathlib\.Path|new\s+File|File)\((.*)\)$", "s")
_EXPANDUSER_CALL = js_re(r"\.expanduser\(\s*\)$")
_HOME_INTERPOLATION = js_re(r"^(?:\$ENV\{HOME\}|[#$]?\{([^{}]*)\})(?=\/|$)")
_EXPANDUSER = js_re(r"""^(?:(?:os|__import__\(\s*['"]os['"]\s*\))\.path\.expanduser|File\.expand_path)\(\s*(['"])(~[^'"]*)\1\s*\)$""")
_JOIN = js_re(r"^(?:os\.path\.join|path\.join|path\.resolve|File\.join|join)\((.*)\)$", "s")


def _home_interpolated(body: str) -> str:
    """A leading interpolation of home in a literal (`"$ENV{HOME}/.ssh"`, `"#{Dir.home}/x"`, `${os.homedir()}/x`, `f"{Path.home()}/x"`) as `~`."""
    m = _HOME_INTERPOLATION.search(body)
    if m and (m.group(1) is None or _HOME_EXPR.search(js_trim(m.group(1)))):
        return "~" + body[m.end() :]
    return body


_TEMP_DIR = js_re(r"""^(?:os\.tmpdir\(\)|require\(['"](?:node:)?os['"]\)\.tmpdir\(\)|tempfile\.gettempdir\(\)|Dir\.tmpdir)$""")
_NEW_TEMP_DIR = js_re(r"""^(?:tempfile\.mkdtemp\(\s*(?:(?:prefix|suffix)\s*=\s*(?:'[^'\\]*'|"[^"\\]*")\s*,?\s*)*\)|Dir\.mktmpdir(?:\(\s*\))?)$""")
_MKDTEMP = js_re(r"^(?:await\s+)?(?:fs\.|fsp\.|fs\.promises\.)?mkdtemp(?:Sync)?\((.*)\)$", "s")
_PREFIX = js_re(r"^[A-Za-z]+")
_F_STRING = js_re(r"^[rbuRBU]?[fF]")
_F_PARTS = js_re(r"\{\{|\}\}|\{([^{}]*)\}", "g")
_TEMPLATE_PARTS = js_re(r"\$\{([^{}]*)\}", "g")
_DOUBLE_QUOTED_PARTS = js_re(r"#\{([^{}]*)\}|\$\{?([A-Za-z_]\w*)\}?", "g")
_SIGIL = js_re(r"^\$")


def _interpolated(raw: str, body: str, names: Mapping[str, str]) -> str:
    """What a string literal names once interpolated.

    In an f-string (`f'{d}/x'`), a template literal (`${d}`) or a double-quoted string of the
    languages that interpolate (`"#{d}"`, `"$d/x"`), a bound name is its value and anything else is
    UNKNOWN, as an unresolved shell word is.
    """
    stripped = js_trim(raw)
    quote = _PREFIX.sub("", stripped, count=1)[:1]
    if _F_STRING.search(stripped):
        pattern = _F_PARTS
    elif quote == "`":
        pattern = _TEMPLATE_PARTS
    elif quote == '"':
        pattern = _DOUBLE_QUOTED_PARTS
    else:
        return body

    def part(m: "re.Match[str]") -> str:
        whole = m.group(0)
        if whole == "{{":
            return "{"
        if whole == "}}":
            return "}"
        sigil = m.group(2) if m.re.groups > 1 else None
        name = "$" + sigil if sigil is not None else js_trim(m.group(1) or "")
        found = names.get(name)
        if found is None:
            found = names.get(_SIGIL.sub("", name, count=1))
        return found if found is not None else UNKNOWN

    return pattern.sub(part, body)


def path_expression(expr: str, names: Optional[Mapping[str, str]] = None) -> str:
    """The path an argument expression names: a literal, home, the cwd, a join of those, or UNKNOWN.

    `names`: the values the code's names hold here (_tier_code_vars.py), one each.
    """
    names = names or {}
    e = js_trim(js_replace(_PATH_CTOR, _EXPANDUSER_CALL.sub("", js_trim(expr), count=1), "$1", False))
    lit = LITERAL.search(e)
    if lit and len(lit.group(0)) == len(e):
        return _interpolated(lit.group(0), _home_interpolated(unquote(lit.group(1))), names)
    if _HOME_EXPR.search(e):
        return "~"
    if _CWD_EXPR.search(e):
        return "."
    if e in names:
        return names[e]
    if _TEMP_DIR.search(e):
        return "/tmp"
    # A new directory of its own: mkdtemp() in the temp directory, mkdtempSync(prefix) beside its prefix.
    if _NEW_TEMP_DIR.search(e):
        return "/tmp/tmp-new"
    made = _MKDTEMP.search(e)
    if made:
        first = split_args(made.group(1) + ")")
        return path_expression(first[0] if first else "", names) + "XXXXXX"
    expanded = _EXPANDUSER.search(e)
    if expanded:
        return expanded.group(2)
    join = _JOIN.search(e)
    if join:
        return "/".join(path_expression(x, names) for x in split_args(join.group(1) + ")"))
    parts = _split_concat(e)
    if len(parts) > 1:
        return "".join(path_expression(p, names) for p in parts)
    return UNKNOWN


def _split_concat(expr: str) -> List[str]:
    """`a + '/x'` (JS, Python, Ruby), `a . '/x'` or `f()."/x"` (PHP, Perl) or `a .. '/x'` (Lua) at the top level: its parts."""
    return split_top_level(expr, r"\s*\.\.\s*|\s[+.]\s|(?<=[)'\"\]}])\.(?=['\"$])|\+", False)
