"""What interpreter code on a command line would do (a port of libs/governance/src/tier/code.ts).

Code handed over on a command line (`python -c`, `node -e`, `perl -e`, `ruby -e`, `php -r`,
`awk '…'`), read without running it: the shell commands it runs (os.system, subprocess,
child_process, system(), backticks), the trees it deletes (shutil.rmtree, fs.rmSync,
FileUtils.rm_rf, rimraf, File::Path rmtree …), the files it overwrites, and whether it runs code it
downloads. A path it names with an expression that is not a literal is UNKNOWN (_tier_code_paths);
deletes through a glob and permission changes are _tier_code_files's.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from ._jsre import js_re, js_trim
from ._normalize import program_name
from ._paths import UNKNOWN
from ._tier_code_files import code_file_findings
from ._tier_code_paths import LITERAL as _LITERAL
from ._tier_code_paths import STRING as _STRING
from ._tier_code_paths import path_expression
from ._tier_code_paths import split_args as _split_args
from ._tier_code_paths import unquote as _unquote
from ._tier_code_vars import bound_paths, code_bindings
from ._tier_interpreters import more_findings, perl_quotes


@dataclass
class CodeFindings:
    #: Shell command lines the code runs.
    shells: List[str] = field(default_factory=list)
    #: Commands it runs without a shell (argv arrays).
    execs: List[List[str]] = field(default_factory=list)
    #: Paths a delete API names: {"api", "path", "recursive"}; `recursive` when it removes whole trees.
    deletes: List[Dict[str, Any]] = field(default_factory=list)
    #: Files it deletes or overwrites one by one.
    file_writes: List[str] = field(default_factory=list)
    remote: bool = False
    fork_bomb: bool = False


_EXEC_CALLS = js_re(r"""\b(system|pcntl_exec|exec|execv|execvp|execve|execvpe|execl|execlp|execle|execlpe|spawnl|spawnlp|spawnv|spawnvp|posix_spawn|posix_spawnp|capture2|capture2e|capture3|popen2|popen3|execSync|execFile|execFileSync|spawn|spawnSync|popen|Popen|call|check_call|check_output|run|getoutput|getstatusoutput|execute|shell_exec|passthru|proc_open|startfile|shell|execa|execaSync|sh|qx|exec_command|do shell script)\s*(\(|\s(?=['"]))""", "g")
_DELETE_CALLS = js_re(r"\b(rmtree|rmSync|rmdirSync|rm_rf|rm_r|rm|rmdir|remove_dir|remove_entry|remove_entry_secure|remove_tree|removeSync|remove|emptyDirSync|emptyDir|deleteSync|RemoveAll|rimraf|rimrafSync|(?:(?<=rimraf\.)|(?<=del\.)|(?<=rimraf'\)\.)|(?<=rimraf\"\)\.)|(?<=del'\)\.)|(?<=del\"\)\.))sync|unlink|unlinkSync|delete|rmdir_p)\s*\(", "g")
_RECURSIVE_APIS = {"rmtree", "rm_rf", "rm_r", "remove_dir", "remove_entry", "remove_entry_secure", "remove_tree", "removeSync", "emptyDirSync", "emptyDir", "deleteSync", "RemoveAll", "rimraf", "rimrafSync", "sync"}
_WRITE_CALLS = js_re(r"\b(open|writeFileSync|writeFile|write_text|write_bytes|truncate|truncateSync|file_put_contents|(?:File|IO)\.(?:bin)?write)\s*\(", "g")
# Perl's write modes, in `open(FH, '>', path)` (the path is the third argument).
_PERL_WRITE_MODE = js_re(r"^\+?>{1,2}(:\S*)?$")
_FORK_BOMBS = [
    js_re(r"(?<![\w:.-])([A-Za-z_:.][\w:.-]*)\(\)\{[^}]*?\1\|\1&?[^}]*\}"),
    js_re(r"function([A-Za-z_][\w-]*)(?:\(\))?\{[^}]*\1\|\1"),
    js_re(r"\bforkwhilefork\b"),
    js_re(r"while(?:True|1|true)[:{]?os\.fork\(\)"),
    js_re(r"(?:while|for)\(?(?:True|1|;;|true)\)?[:{]?(?:os\.)?fork\(\)"),
    js_re(r"fork\(\)while(?:True|1|true)|fork\s*while\s*fork"),
]
_STRINGS = js_re(_STRING, "g")
# Code that can run a command, by whatever name it reaches the runner.
_RUNNER = js_re(r"\b(os|subprocess|child_process|system|exec\w*|spawn\w*|popen|Popen|shell_exec|passthru|proc_open|Kernel|Open3|IO\.popen|pty)\b")
# A literal that reads as a command line: a program word, then an argument.
_COMMAND_LIKE = js_re(r"^\s*[\w./-]+\s+\S")
# Literals read as commands, at most: a script's many strings are not each a command line.
_MAX_LITERALS = 64


_ARRAY = js_re(r"^\s*\[(.*)\]\s*$", "s")


def _strings_of_array(expr: str) -> Optional[List[str]]:
    m = _ARRAY.search(expr)
    if not m:
        return None
    items = [x for x in (js_trim(x) for x in _split_args(m.group(1) + ")")) if x != ""]
    values = [_LITERAL.search(x) for x in items]
    return [UNKNOWN if v is None else _unquote(v.group(1)) for v in values]


def _calls_of(code: str, rx: "re.Pattern[str]") -> List[Tuple[str, List[str]]]:
    out: List[Tuple[str, List[str]]] = []
    for m in rx.finditer(code):
        after = code[m.end() :]
        paren = (rx.groups >= 2 and m.group(2) == "(") or m.group(0).endswith("(")
        if paren:
            out.append((m.group(1), _split_args(after)))
        else:
            lit = _LITERAL.search(after)
            out.append((m.group(1), [lit.group(0) if lit else ""]))
    return out


def _strip_strings(code: str) -> str:
    return _STRINGS.sub("''", code)


_SPACES = js_re(r"\s+", "g")
_FORK_LOOP = js_re(r"\bfork\b[^;]*\b(while|until|for|iter|loop)\b|\b(while|until|loop)\b[^;]*\bfork\b")
_NO_SHELL_SPAWN = js_re(r"execFile|execa|popen")
_ARGV_SPAWN = js_re(r"spawn|execFile|execa|^exec[lv]|pcntl_exec")
_RECURSIVE_ARG = js_re(r"recursive\s*[:=]\s*(true|True)|recursive\s*=>\s*1|-r")
_WRITE_MODE = js_re(r"[wx]")
_BACKTICKS = js_re(r"`([^`]*)`|%x\(([^)]*)\)|%x\{([^}]*)\}", "g")
_SOCKET = js_re(r"(fsockopen|socket\.socket|TCPSocket|IO::Socket|net\.connect|new\s+net\.Socket|socket\.create_connection)")
_SOCKET_SHELL = js_re(r"(exec|system|spawn|\/bin\/(ba)?sh|pty\.spawn|dup2|popen)")
# Running code: a call, or eval handed over as the callback (`.then(eval)`).
_EVAL = js_re(r"\b(exec|eval|iex|Invoke-Expression|instance_eval|runInThisContext|Function)\s*\(|\.then\(\s*eval\s*\)")
_FETCH = js_re(r"""(urlopen|urllib|requests\.get|https?\.get|require\(['"]https?['"]\)\.get|fetch\s*\(|open-uri|URI\.open|Net::HTTP|LWP|HTTP::Tiny|file_get_contents\s*\(\s*['"]https?:|DownloadString|curl|wget)""")


#: Interpreters whose backticks run no shell: JavaScript's are template literals, Python 3 has none.
_NO_SHELL_BACKTICKS = js_re(r"^(node(js)?|deno|bun|tsx|ts-node|python[\d.]*|pypy3?)$")
_TAGGED_SHELL = js_re(r"\$(?:\.\w+)?\s*`([^`]*)`", "g")


def analyze_code(source: str, program: str = "") -> CodeFindings:
    """What the code does; `program` is its interpreter when the line names it (unknown: any language's reading)."""
    code = perl_quotes(source)
    f = CodeFindings()
    compact = _SPACES.sub("", _strip_strings(code))
    f.fork_bomb = any(rx.search(compact) for rx in _FORK_BOMBS) or _FORK_LOOP.search(_strip_strings(code)) is not None
    for name, args in _calls_of(code, _EXEC_CALLS):
        first = args[0] if args else ""
        lit = _LITERAL.search(first)
        array = _strings_of_array(first)
        whole = lit is not None and len(js_trim(lit.group(0))) == len(js_trim(first))
        if array is not None:
            f.execs.append(array)
        elif lit and not whole:
            f.shells.append(_unquote(lit.group(1)) + UNKNOWN)
        elif lit and len(args) > 1 and not _NO_SHELL_SPAWN.search(name) and all(_LITERAL.search(a) or path_expression(a) != UNKNOWN for a in args[1:]):
            f.execs.append([_unquote(m.group(1)) if m else path_expression(a) for a in args for m in [_LITERAL.search(a)]])
        elif lit:
            rest = _strings_of_array(args[1] if len(args) > 1 else "")
            if rest is not None and _ARGV_SPAWN.search(name):
                f.execs.append([_unquote(lit.group(1)), *rest])
            else:
                f.shells.append(_unquote(lit.group(1)))
        elif js_trim(first) != "" and name not in ("run", "call", "exec", "sh", "shell"):
            f.shells.append(UNKNOWN)
    more = more_findings(code)
    files = code_file_findings(code)
    f.shells.extend(more.shells)
    f.execs.extend([*more.execs, *files.execs])
    f.deletes.extend([*more.deletes, *files.deletes])
    # Backticks and %x() run a shell in Perl, Ruby, PHP; in JavaScript a template tagged `$` does
    # (Bun's `Bun.$`, zx's and execa's `$`, `$.sync`).
    for m in (_TAGGED_SHELL if _NO_SHELL_BACKTICKS.search(program_name(program)) else _BACKTICKS).finditer(code):
        g = next((x for x in m.groups() if x is not None), "")
        f.shells.append(g)
    bindings = code_bindings(code)
    for name, args in _calls_of(code, _DELETE_CALLS):
        recursive = name in _RECURSIVE_APIS or _RECURSIVE_ARG.search(",".join(args[1:])) is not None
        for path in bound_paths(args[0] if args else "", bindings):
            if recursive or path != UNKNOWN:
                f.deletes.append({"api": name, "path": path, "recursive": recursive})
    for name, args in _calls_of(code, _WRITE_CALLS):
        mode_match = _LITERAL.search(args[1] if len(args) > 1 else "")
        perl = name == "open" and mode_match is not None and _PERL_WRITE_MODE.search(js_trim(_unquote(mode_match.group(1)))) is not None
        if name == "open" and not perl and (mode_match is None or not _WRITE_MODE.search(_unquote(mode_match.group(1)))):
            continue
        at = 2 if perl else 0
        f.file_writes.extend(p for p in bound_paths(args[at] if len(args) > at else "", bindings) if p != UNKNOWN)
    # Code that can run a command and holds a literal that is one may run it through a name the calls
    # above do not read (`getattr(os, 'system')('rm -rf ~')`, `const {execSync: x} = …; x('rm -rf /')`):
    # the literal is judged as the command it may be.
    if _RUNNER.search(code):
        for m in list(_STRINGS.finditer(code))[:_MAX_LITERALS]:
            text = _unquote(m.group(0))
            if _COMMAND_LIKE.search(text) and text not in f.shells:
                f.shells.append(text)
    socket = _SOCKET.search(code) is not None and _SOCKET_SHELL.search(code) is not None
    f.remote = socket or (_EVAL.search(code) is not None and _FETCH.search(code) is not None)
    return f
