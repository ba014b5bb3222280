"""What reaches a command's standard input (a port of libs/governance/src/tier/streams.ts).

As far as the line shows it: the text of an `echo`, `printf`, heredoc or here-string (decoded
through `base64 -d`, `xxd -r`, `rev` when it can be), the paths `find` prints, the names `ls` prints, every pid `ps -e` prints, a local file (by the
names the line gives it: `< f`, `cat f`, `head f`), a download, or something the gate cannot read. A
shell or an interpreter that runs its standard input runs exactly this. A stream is a dict:
{"kind": "text", "texts": […]}, {"kind": "local", "files": […]} or {"kind": "remote" | "unknown" |
"none"}.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence

from ._expand import expand_argv, expand_word
from ._jsre import js_re
from ._normalize import effective_command
from ._paths import UNKNOWN
from ._shell import SimpleCommand, parse_shell
from ._tier_processes import EVERY_PID, lists_every_process

if TYPE_CHECKING:
    from ._expand import Scope

Stream = Dict[str, Any]

#: Stands for the ids `docker ps -aq` prints: every container.
ALL_CONTAINERS = "\u0005every-container"
DOWNLOADERS = {"curl", "wget", "fetch", "aria2c", "http", "https", "xh", "lwp-request", "GET", "nc", "ncat", "netcat", "socat", "telnet", "wget2", "curlie"}


def _text(texts: List[str]) -> Stream:
    return {"kind": "text", "texts": texts}


def _map(s: Stream, f: Callable[[str], Optional[str]]) -> Stream:
    # Decoding a file's bytes (`base64 -d < f`) gives text the line does not show.
    if s["kind"] != "text":
        return {"kind": "unknown"} if s["kind"] in ("none", "local") else s
    out = [f(t) for t in s["texts"]]
    return {"kind": "unknown"} if any(t is None for t in out) else _text(out)  # type: ignore[arg-type]


_ESCAPES = js_re(r"\\(n|t|\\|0?[0-7]{1,3}|x[0-9a-fA-F]{1,2})", "g")


def _unescape(s: str) -> str:
    def one(m: "re.Match[str]") -> str:
        e = m.group(1)
        if e == "n":
            return "\n"
        if e == "t":
            return "\t"
        if e == "\\":
            return "\\"
        if e[0] == "x":
            return chr(int(e[1:], 16))
        return chr(int(e, 8))

    return _ESCAPES.sub(one, s)


_B64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64_VALUES = {ord(c): i for i, c in enumerate(_B64_ALPHABET)}
_B64_VALUES[ord("-")] = 62
_B64_VALUES[ord("_")] = 63


def node_base64(s: str) -> bytes:
    """Buffer.from(s, 'base64'): each UTF-16 unit's low byte; both alphabets; others skipped; `=` ends it."""
    units = s.encode("utf-16-le", "surrogatepass")[0::2]
    values: List[int] = []
    for b in units:
        if b == 0x3D:
            break
        v = _B64_VALUES.get(b)
        if v is not None:
            values.append(v)
    out = bytearray()
    for i in range(0, len(values) - 1, 4):
        group = values[i : i + 4]
        n = 0
        for v in group:
            n = (n << 6) | v
        n <<= 6 * (4 - len(group))
        out += n.to_bytes(3, "big")[: len(group) - 1]
    return bytes(out)


_SPACES = js_re(r"\s+", "g")
_BASE64_TEXT = js_re(r"^[A-Za-z0-9+/_-]*={0,2}$")
_HEX_TEXT = js_re(r"^([0-9a-fA-F]{2})*$")


def _base64_decode(s: str) -> Optional[str]:
    compact = _SPACES.sub("", s)
    if not _BASE64_TEXT.search(compact) or UNKNOWN in compact:
        return None
    return node_base64(compact).decode("utf-8", "replace")


def _hex_decode(s: str) -> Optional[str]:
    compact = _SPACES.sub("", s)
    return bytes.fromhex(compact).decode("utf-8", "replace") if _HEX_TEXT.search(compact) else None


_NET_DEVICE = js_re(r"^\/dev\/(tcp|udp)\/")


_OPTION = js_re(r"^-.")
_HEAD_VALUED = js_re(r"^(-[nc]|--lines|--bytes|--pid|--sleep-interval|-s)$")


def _file_operands(program: str, args: Sequence[str]) -> List[str]:
    """The files cat, head, tail or tac print: their operands, without the values of `-n 5`, `-c 1K`."""

    def valued(w: Optional[str]) -> bool:
        return program in ("head", "tail") and _HEAD_VALUED.search(w or "") is not None

    return [a for i, a in enumerate(args) if not _OPTION.search(a) and not valued(args[i - 1] if i > 0 else None)]


def stdin_of(stages: Sequence[SimpleCommand], k: int, scope: "Scope") -> Stream:
    """What a command reads on its standard input: its own redirections first, then the pipeline."""
    cmd = stages[k]
    inp = next((r for r in reversed(cmd.redirects) if r.op in ("<<", "<<-", "<<<", "<")), None)
    if inp is not None and inp.op == "<<<":
        return _text(expand_word(inp.target, scope))
    if inp is not None and inp.op != "<":
        return _text([inp.target])
    if inp is not None and inp.target.startswith("<("):
        return script_output(inp.target[2:-1], scope)
    if inp is not None:
        return {"kind": "remote"} if _NET_DEVICE.search(inp.target) else {"kind": "local", "files": expand_word(inp.target, scope)}
    if k > 0:
        return output_of(stages, k - 1, scope)
    return scope.stdin if scope.stdin is not None else {"kind": "none"}


def script_output(text: str, scope: "Scope") -> Stream:
    """What a script (a process substitution's) writes: its last pipeline's output."""
    pipelines = parse_shell(text).pipelines
    if not pipelines:
        return {"kind": "none"}
    last = pipelines[-1]
    return output_of(last.commands, len(last.commands) - 1, scope)


_STDOUT_REDIRECT = js_re(r"^(>|>>|>\||&>)$")
_STD_FD = js_re(r"^&?[12]$")
_ECHO_FLAGS = js_re(r"^-[neE]+$")
_FORMAT = js_re(r"%[sb]", "g")
_BASE64_DECODE = js_re(r"^(-d|--decode|-D|-di|-id)$")
_XXD_REVERT = js_re(r"^-r")
_FIND_STOP = js_re(r"^[-(!]")
_FIND_SYMLINK_OPT = js_re(r"^-[HLP]$")
_FIND_FILTER = js_re(r"^-(i?name|i?path|i?regex|mindepth|type|newer|mtime|size|wholename)$")
_DOCKER_ALL = js_re(r"^-[a-zA-Z]*a")


#: ls's options that print names only, one per line (no `.` or `..`, no link targets, no other directory's path).
_LS_NAMES_ONLY = js_re(r"^(-[1AtrSXvcuUGhFpdQ]+|--color(=\w+)?|--)$")
_LS_DIRECTORIES_ONLY = js_re(r"^-[^-]*d")


def _ls_output(args: Sequence[str]) -> Stream:
    """What `ls` prints: its operands as given (files, and what a glob matches), and any name inside a
    directory it lists, which `*` stands for (never `.` or `..`, and never with a `/`). With `-a`, `-l`,
    `-R` or another option it may print more, and its output is unknown."""
    if not all(_LS_NAMES_ONLY.search(a) for a in args if a.startswith("-")):
        return _text([UNKNOWN])
    operands = [a for a in args if not a.startswith("-")]
    if any(_LS_DIRECTORIES_ONLY.search(a) for a in args):
        names = [] if operands else ["."]
    else:
        names = ["*"]
    return _text(["\n".join([*operands, *names])])


def output_of(stages: Sequence[SimpleCommand], k: int, scope: "Scope", to_file: bool = False) -> Stream:
    """What a pipeline stage writes to its standard output."""
    cmd = stages[k]
    if not to_file and any(_STDOUT_REDIRECT.search(r.op) and not _STD_FD.search(r.target) for r in cmd.redirects):
        return {"kind": "none"}
    if cmd.group is not None:
        if not cmd.group.pipelines:
            return {"kind": "none"}
        last = cmd.group.pipelines[-1]
        return output_of(last.commands, len(last.commands) - 1, scope)
    variants = expand_argv(cmd.argv, scope, cmd.split)
    argv = variants[0] if variants else []
    eff = effective_command(argv)
    program = eff.argv[0] if eff.argv else ""
    args = eff.argv[1:]
    if program in DOWNLOADERS:
        return {"kind": "remote"}
    if program == "echo":
        return _text([_unescape(" ".join(a for i, a in enumerate(args) if not (i == 0 and _ECHO_FLAGS.search(a)))) + "\n"])
    if program == "printf":
        fmt = _unescape(args[0] if args else "")
        rest = list(args[1:])
        if not rest:
            return _text([fmt])
        if "%" in fmt:
            return _text([_FORMAT.sub(lambda _: _unescape(rest.pop(0) if rest else ""), fmt)])
        return _text([fmt + " ".join(rest)])
    if program in ("cat", "head", "tail", "tac"):
        files = _file_operands(program, args)
        return {"kind": "local", "files": files} if files and "-" not in files else stdin_of(stages, k, scope)
    if program == "tee":
        return stdin_of(stages, k, scope)
    if program == "base64":
        return _map(stdin_of(stages, k, scope), _base64_decode) if any(_BASE64_DECODE.search(a) for a in args) else {"kind": "unknown"}
    if program == "xxd":
        return _map(stdin_of(stages, k, scope), _hex_decode) if any(_XXD_REVERT.search(a) or a == "-revert" for a in args) else {"kind": "unknown"}
    if program == "rev":
        return _map(stdin_of(stages, k, scope), lambda t: "\n".join(line[::-1] for line in t.split("\n")))
    if program == "find":
        stop = next((i for i, a in enumerate(args) if _FIND_STOP.search(a) and not _FIND_SYMLINK_OPT.search(a)), -1)
        roots = [a for a in (args if stop == -1 else args[:stop]) if not _FIND_SYMLINK_OPT.search(a)]
        filtered = any(_FIND_FILTER.search(a) for a in args)
        listed = roots if roots else ["."]
        return _text(["\n".join(x for r in listed for x in ([f"{r}/x"] if filtered else [r, f"{r}/x"]))])
    if program in ("docker", "podman"):
        every = args[:1] == ["ps"] and any(_DOCKER_ALL.search(a) for a in args) and not any(a.startswith("--filter") or a == "-f" for a in args)
        return _text([ALL_CONTAINERS]) if every else {"kind": "unknown"}
    if program == "ls":
        return _ls_output(args)
    if program == "ps":
        return _text([EVERY_PID]) if lists_every_process(args) else {"kind": "unknown"}
    if program in ("git", "grep", "fd", "rg"):
        # Names from the workspace: any name at all, `etc` or `..` included.
        return _text([UNKNOWN])
    return {"kind": "unknown"}
