"""What interpreter code does to files beyond _tier_code's call patterns (a port of libs/governance/src/tier/code-files.ts).

Deleting what a glob matches (`unlink glob("~/.ssh/*")`, `unlink <~/.*>`, `for p in glob.glob(…):
os.remove(p)`, `Dir["#{Dir.home}/.*"].each { |f| File.delete(f) }`), Perl's deletes without
parentheses (`rmtree "$ENV{HOME}"`), and changing permissions (`os.chmod(p, 0)`, `fs.chmodSync`,
`File.chmod`, `FileUtils.chmod_R`, Perl's and PHP's `chmod`), returned as the chmod command that does
the same. A glob is judged as the paths it names; one a loop iterates is tied to the delete in the
same code when it lies in home or lists a whole directory (`/etc/*`), as _tier_code_hidden ties a
listing of home to a delete: `glob('/etc/*.conf')` read beside an unrelated delete is not one.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from ._jsre import js_re, js_trim
from ._paths import UNKNOWN
from ._tier_code_paths import LITERAL, path_expression, split_args, unquote


@dataclass
class FileFindings:
    deletes: List[Dict[str, Any]] = field(default_factory=list)
    execs: List[List[str]] = field(default_factory=list)


_GLOB_CALL = js_re(r"^(?:glob\.i?glob|glob\.sync|globSync|fg\.sync|fastGlob\.sync|Dir\.glob|expandGlobSync|glob)\s*\(")
_GLOBS = js_re(r"\b(?:glob\.i?glob|glob\.sync|globSync|fg\.sync|fastGlob\.sync|Dir\.glob|expandGlobSync|glob)\s*\(|\bDir\[|<[^<>\s]*[/*~][^<>\s]*>", "g")
_PATH_GLOB = js_re(r"((?:pathlib\.)?Path(?:\.home)?\([^()]*\)(?:\.expanduser\(\))?)\.(r?)glob\(", "g")
_ANGLE = js_re(r"^<([^<>\s]*[/*~][^<>\s]*)>$")
_RECURSIVE = {"rmtree", "rm_rf", "rm_r", "remove_tree", "rimraf", "rimrafSync", "removeSync"}
#: A delete call, a delete handed over by name (`map(os.remove, …)`, `forEach(fs.unlinkSync)`), or Perl's without parentheses.
_DELETES = js_re(
    r"""\b(unlink|unlinkSync|remove|delete|rmtree|rm_rf|rm_r|rmSync|rmdir|rmdirSync|removeSync|rimraf|rimrafSync|remove_tree)\b(?:\s*[(!),;}]|\s+(?=glob\b|<|["'$@]|for(?:each)?\b))|['"](unlink)['"]|:(delete|unlink)\b""",
    "g",
)
_RECURSIVE_ARG = js_re(r"recursive\s*[:=]\s*(true|True)|recursive\s*=>\s*1")
_CHMODS = js_re(r"(?:\b(os|fs|fsp|promises|File|FileUtils)\.)?\b(l?chmod(?:Sync|_R)?)\b\s*(\(|\s(?=\d))", "g")
_PATH_CHMOD = js_re(r"((?:pathlib\.)?Path(?:\.home)?\([^()]*\)(?:\.expanduser\(\))?)\.chmod\(\s*([^)]*)\)", "g")
_STATEMENT_END = js_re(r"[;\n]")
_OPEN_PAREN = js_re(r"^\s*\(?")
_QUOTED_AFTER = js_re(r"^\s*[\"']")
_QUOTED = js_re(r"^['\"]")
_LISTING = js_re(r"^\/(.*\/)?[*.?]+$")
_OCTAL = js_re(r"^0[oO]?([0-7]+)$")
_DECIMAL = js_re(r"^[1-9]\d{0,4}$")
_DIGIT_FIRST = js_re(r"^\s*\d")


def _first_expression(text: str) -> str:
    """The expression at the start of `text`: up to a top-level comma, `;`, newline or closing bracket."""
    return js_trim(split_args(_STATEMENT_END.split(text)[0])[0])


def glob_pattern(expr: str) -> Optional[str]:
    """The pattern a glob expression names (`glob("~/.ssh/*")`, `Dir[…]`, Perl's `<…>`), or None when it is none."""
    e = js_trim(expr)
    if _GLOB_CALL.search(e):
        return path_expression(split_args(_GLOB_CALL.sub("", e, count=1))[0])
    if e.startswith("Dir["):
        return path_expression(split_args(e[4:])[0])
    angle = _ANGLE.search(e)
    return path_expression(json.dumps(angle.group(1), ensure_ascii=False)) if angle else None


def _globs(code: str) -> List[str]:
    """Every pattern the code globs, a path object's (`Path('~/.ssh').expanduser().glob('*')`) included."""
    out: List[str] = []
    for m in _GLOBS.finditer(code):
        pattern = glob_pattern(m.group(0) if m.group(0).startswith("<") else m.group(0) + code[m.end() :])
        if pattern is not None:
            out.append(pattern)
    for m in _PATH_GLOB.finditer(code):
        lit = LITERAL.search(code[m.end() :])
        base = path_expression(m.group(1))
        if lit:
            out.append(f"{base}/{'**/' if m.group(2) == 'r' else ''}{unquote(lit.group(1))}")
    return [p for p in out if p != UNKNOWN]


def _deletes_through_globs(code: str) -> List[Dict[str, Any]]:
    out: List[Dict[str, Any]] = []
    found = list(_DELETES.finditer(code))
    if not found:
        return out
    names = [m.group(1) or m.group(2) or m.group(3) for m in found]
    recursive = any(n in _RECURSIVE for n in names) or _RECURSIVE_ARG.search(code) is not None
    api = next((n for n in names if n in _RECURSIVE), names[0])
    # The delete's own argument: `unlink glob(…)`, `rmtree "$ENV{HOME}"`, `FileUtils.rm_rf(Dir[…])`.
    for m in found:
        if m.group(1) is None:
            continue
        after = code[m.end() :]
        arg = _first_expression(_OPEN_PAREN.sub("", after, count=1))
        globbed = glob_pattern(arg)
        # A literal in parentheses is _tier_code's; Perl's `rmtree "…"` without them is not.
        path = globbed if globbed is not None else (path_expression(arg) if _QUOTED_AFTER.search(after) and _QUOTED.search(arg) else None)
        if path is not None and path != UNKNOWN:
            out.append({"api": m.group(1) if globbed is None else f"{m.group(1)} glob", "path": path, "recursive": m.group(1) in _RECURSIVE})
    # A loop over a glob in home or over a whole directory, with a delete in the same code.
    for pattern in _globs(code):
        if pattern.startswith("~") or _LISTING.search(pattern):
            out.append({"api": f"{api} over a glob", "path": pattern, "recursive": recursive})
    return out


def _mode_word(expr: str) -> str:
    """A numeric or string mode literal as chmod's mode word (`0o700` -> `700`, `448` -> `700`); UNKNOWN for anything else."""
    e = js_trim(expr)
    lit = LITERAL.search(e)
    if lit and len(js_trim(lit.group(0))) == len(e):
        return unquote(lit.group(1))
    octal = _OCTAL.search(e)
    if octal or e == "0":
        return octal.group(1) if octal else "0"
    return format(int(e), "o") if _DECIMAL.search(e) else UNKNOWN


def _chmod_commands(code: str) -> List[List[str]]:
    """The chmod commands code runs through its languages' calls: mode first for Ruby and Perl, path first elsewhere."""
    out: List[List[str]] = []
    for m in _CHMODS.finditer(code):
        after = code[m.end() :]
        args = split_args(after) if m.group(3) == "(" else _STATEMENT_END.split(after)[0].split(",")
        mode_first = m.group(1) in ("File", "FileUtils") or (m.group(1) is None and _DIGIT_FIRST.search(args[0]) is not None)
        mode, paths = (args[0], args[1:]) if mode_first else (args[1] if len(args) > 1 else "", [args[0]])
        for p in paths:
            globbed = glob_pattern(p)
            out.append(["chmod", *(["-R"] if m.group(2).endswith("_R") else []), _mode_word(mode), globbed if globbed is not None else path_expression(p)])
    for m in _PATH_CHMOD.finditer(code):
        out.append(["chmod", _mode_word(m.group(2)), path_expression(m.group(1))])
    return out


def code_file_findings(code: str) -> FileFindings:
    return FileFindings(deletes=_deletes_through_globs(code), execs=_chmod_commands(code))
