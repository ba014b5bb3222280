"""Ways to run a command from interpreter code (a port of libs/governance/src/tier/interpreters.ts).

Perl's quote operators (`system q(rm -rf ~)`, `qx{…}`, `qw(…)`), Tcl's `exec rm -rf ~` and
`file delete -force`, awk's `print … | "sh"` and `"cmd" | getline`, Groovy's `"…".execute()`, Deno's
`new Deno.Command` and `Deno.run({cmd})`, Ruby's Open3, Java's ProcessBuilder.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, List

from ._jsre import js_re

_PAIRS = {"(": ")", "{": "}", "[": "]", "<": ">"}
_HAS_QUOTE_OP = js_re(r"\bq[qxw]?\s*[^\w\s]")
_QUOTE_OP = js_re(r"(?<![\w$@%&>-])(qq|qx|qw|q)\s*([^\w\s;,])", "g")
_WORDS = js_re(r"\s+")
_STR = r"""\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'"""
_STRS = js_re(_STR, "g")
_UNESCAPE = js_re(r"\\(.)", "g")
_TCL_EXEC = js_re(r"""(?:^|[\n;[{])\s*exec\s+(?![('"[{$])([^\n;\]}]+)""", "g")
_TCL_BG = js_re(r"\s*&\s*$")
_TCL_DELETE = js_re(r"""\bfile\s+delete\s+((?:-\w+\s+)*)(?:--\s+)?("[^"]*"|\S+)""", "g")
_QUOTES_AROUND = js_re(r"""^"|"$""", "g")
_FORCE = js_re(r"-force")
_AWK_PIPE = js_re(r"(?:print|printf)\b[^|;}]*\|\s*(" + _STR + ")", "g")
_AWK_PRINTED = js_re(r"""(?:print|printf)\s*\(?\s*("(?:[^"\\]|\\.)*")""")
_SH = js_re(r"^(sh|bash|dash|zsh|ksh|\/bin\/(ba)?sh)$")
_GETLINE = js_re("(" + _STR + r")\s*\|\s*getline", "g")
_GROOVY = js_re("(" + _STR + r")\s*\.execute\(", "g")
_GROOVY_LIST = js_re(r"\[([^\]]*)\]\s*\.execute\(", "g")
_DENO_COMMAND = js_re(r"Deno\.Command\(\s*(" + _STR + r")\s*(?:,\s*\{[^}]*?\bargs\s*:\s*\[([^\]]*)\])?", "g")
_DENO_RUN = js_re(r"Deno\.run\(\s*\{[^}]*?\bcmd\s*:\s*\[([^\]]*)\]", "g")
_OPEN3 = js_re(r"\bOpen3\.\w+\(\s*(" + _STR + ")", "g")
_PROCESS_BUILDER = js_re(r"\bnew\s+ProcessBuilder\(([^)]*)\)", "g")
# Perl / Ruby list form, parentheses optional: `exec "rm", "-rf", "/etc"`, `system 'rm', '-rf', '~'`.
_LIST_EXEC = js_re(r"\b(?:system|exec|spawn)\s*\(?\s*((?:" + _STR + r")(?:\s*,\s*(?:" + _STR + r"))+)", "g")


@dataclass
class MoreFindings:
    shells: List[str] = field(default_factory=list)
    execs: List[List[str]] = field(default_factory=list)
    deletes: List[Dict[str, Any]] = field(default_factory=list)


def _json_string(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def perl_quotes(code: str) -> str:
    """Perl's q(), qq(), qx(), qw() with any delimiter, as the literals _tier_code reads."""
    if not _HAS_QUOTE_OP.search(code):
        return code
    out = ""
    i = 0
    pos = 0
    while True:
        m = _QUOTE_OP.search(code, pos)
        if m is None:
            break
        open_ = m.group(2)
        close = _PAIRS.get(open_, open_)
        depth = 1
        j = m.end()
        while j < len(code):
            if code[j] == "\\":
                j += 1
            elif code[j] == open_ and close != open_:
                depth += 1
            elif code[j] == close:
                depth -= 1
                if depth == 0:
                    break
            j += 1
        if j >= len(code):
            break
        body = code[m.end() : j]
        op = m.group(1)
        if op == "qx":
            lit = f"`{body}`"
        elif op == "qw":
            lit = "(" + ", ".join(_json_string(w) for w in _WORDS.split(body.strip()) if w != "" or body.strip() == "") + ")"
        else:
            lit = _json_string(body)
        out += code[i : m.start()] + lit
        i = j + 1
        pos = i
    return out + code[i:]


def _unq(lit: str) -> str:
    return _UNESCAPE.sub(lambda m: m.group(1), lit[1:-1])


def _strings(text: str) -> List[str]:
    return [_unq(m.group(0)) for m in _STRS.finditer(text)]


def more_findings(code: str) -> MoreFindings:
    f = MoreFindings()
    for m in _TCL_EXEC.finditer(code):
        f.shells.append(_TCL_BG.sub("", m.group(1), count=1))
    for m in _TCL_DELETE.finditer(code):
        f.deletes.append({"api": "file delete", "path": _QUOTES_AROUND.sub("", m.group(2)), "recursive": _FORCE.search(m.group(1)) is not None})
    for m in _AWK_PIPE.finditer(code):
        printed = _AWK_PRINTED.search(m.group(0))
        cmd = _unq(m.group(1))
        if _SH.search(cmd.strip()) and printed:
            f.shells.append(_unq(printed.group(1)))
        else:
            f.shells.append(cmd)
    for m in _GETLINE.finditer(code):
        f.shells.append(_unq(m.group(1)))
    for m in _GROOVY.finditer(code):
        f.shells.append(_unq(m.group(1)))
    for m in _GROOVY_LIST.finditer(code):
        f.execs.append(_strings(m.group(1)))
    for m in _DENO_COMMAND.finditer(code):
        f.execs.append([_unq(m.group(1)), *_strings(m.group(2) or "")])
    for m in _DENO_RUN.finditer(code):
        f.execs.append(_strings(m.group(1)))
    for m in _OPEN3.finditer(code):
        f.shells.append(_unq(m.group(1)))
    for m in _PROCESS_BUILDER.finditer(code):
        f.execs.append(_strings(m.group(1)))
    for m in _LIST_EXEC.finditer(code):
        f.execs.append(_strings(m.group(1)))
    return f
