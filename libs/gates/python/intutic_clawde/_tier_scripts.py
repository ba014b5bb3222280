"""Scripts that reach a shell other than as its arguments (a port of libs/governance/src/tier/scripts.ts).

Files a line writes or downloads and then runs (`curl -o x … && sh x`, `echo 'rm -rf ~' > x.sh &&
bash x.sh`), downloads substituted into a command (`sh -c "$(curl …)"`), and shells wired to the
network (`nc -e`, `sh | nc`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence

from ._jsre import js_re
from ._normalize import SHELLS, effective_command, interpreter_of, program_name
from ._shell import ShellScript, SimpleCommand
from ._tier_streams import DOWNLOADERS, output_of

if TYPE_CHECKING:
    from ._expand import Scope

_DOT_SLASH = js_re(r"^\.\/")
_URL = js_re(r"^[a-z]+:\/\/", "i")
_HOST_PATH = js_re(r"^[\w.-]+\.[a-z]{2,}\/", "i")
_QUERY = js_re(r"[?#].*$")
_TRAILING_SLASHES = js_re(r"\/+$")
_OUTPUT_EQ = js_re(r"^--output(-document)?=")
_CURL_O_ATTACHED = js_re(r"^-o.")
_CURL_REMOTE_NAME = js_re(r"^-[a-zA-Z]*O$")
_WGET_OUTPUT = js_re(r"^(-O|--output-document)")

_CURL_O_BUNDLE = js_re(r"^-[a-zA-Z]+o$")

def file_key(p: str) -> str:
    return _DOT_SLASH.sub("", p, count=1)


def written_text(word: str, scope: "Scope") -> Optional[str]:
    """The text a file was given earlier in the line (`echo 'DROP TABLE t;' > d.sql`), if the line shows it."""
    file = scope.files.get(file_key(word))
    return file.get("text") if isinstance(file, dict) else None


def _base(u: str) -> str:
    return _TRAILING_SLASHES.sub("", _QUERY.sub("", u, count=1), count=1).split("/")[-1]


def note_written_files(argv: Sequence[str], cmd: SimpleCommand, stages: Sequence[SimpleCommand], k: int, scope: "Scope") -> None:
    """Remember what a command writes to a file: a download, or a script text (`echo 'rm -rf ~' > x.sh`)."""
    program = argv[0] if argv else ""
    args = list(argv[1:])
    remote = {"remote": True}
    if program in DOWNLOADERS:
        urls = [a for a in args if _URL.search(a) or _HOST_PATH.search(a)]
        for i, a in enumerate(args):
            # `-o FILE`, also ending a bundle of curl's short options (`-so FILE`, `-sSLo FILE`).
            if a in ("-o", "--output") or (program == "curl" and _CURL_O_BUNDLE.search(a)) or (program == "wget" and a in ("-O", "--output-document")):
                scope.files[file_key(args[i + 1] if i + 1 < len(args) else "")] = remote
            elif _OUTPUT_EQ.search(a):
                scope.files[file_key(a[a.index("=") + 1 :])] = remote
            elif _CURL_O_ATTACHED.search(a) and program == "curl":
                scope.files[file_key(a[2:])] = remote
            elif (a in ("-O", "--remote-name") or _CURL_REMOTE_NAME.search(a)) and program == "curl":
                for u in urls:
                    scope.files[_base(u)] = remote
        if program == "wget" and not any(_WGET_OUTPUT.search(a) for a in args):
            for u in urls:
                scope.files[_base(u)] = remote
    target = next((r.target for r in cmd.redirects if r.op in (">", ">|", ">>")), None)
    if target is None:
        return
    out = output_of(stages, k, scope, True)
    if out["kind"] == "remote":
        scope.files[file_key(target)] = remote
    elif out["kind"] == "text":
        scope.files[file_key(target)] = {"text": "\n".join(out["texts"])}


def written_file_run(argv: Sequence[str], scope: "Scope") -> Optional[Dict[str, Any]]:
    """The file written earlier in the line that this command runs, if any: {"remote": True}, or {"text", "code"}."""
    if not scope.files:
        return None
    program = argv[0] if argv else ""
    args = argv[1:]
    runner = program in SHELLS or interpreter_of(program) is not None or program in ("source", ".")
    file = next((a for a in args if not a.startswith("-")), None) if runner else None
    known = next((c for f, c in scope.files.items() if (file is not None and f == file_key(file)) or f == file_key(program) or ("/" in f and f.endswith(f"/{program}")) or f == program), None)
    if known is None:
        return None
    return known if "remote" in known else {"text": known["text"], "code": runner and interpreter_of(program) is not None}


_SUBSTITUTED = js_re(r"^(\$\(|`)")


def _downloads(s: ShellScript) -> bool:
    for p in s.pipelines:
        for c in p.commands:
            eff = effective_command(c.argv)
            if (eff.argv[0] if eff.argv else "") in DOWNLOADERS or (_downloads(c.group) if c.group is not None else False):
                return True
    return False


def runs_substituted_download(cmd: SimpleCommand, program: str) -> bool:
    """`sh -c "$(curl …)"`, `eval "$(wget …)"`, `$(curl …)` as the command itself."""
    runner = program in SHELLS or interpreter_of(program) is not None or program in ("source", ".", "eval") or _SUBSTITUTED.search(cmd.argv[0] if cmd.argv else "") is not None
    return runner and any(_downloads(sub) for sub in cmd.substitutions)


_NETCATS = js_re(r"^(nc|ncat|netcat|socat|telnet|openssl)$")
_NC = js_re(r"^(nc|ncat|netcat)$")
_NC_EXEC = js_re(r"^(-e|-c|--exec|--sh-exec|--lua-exec)$")
_NC_BUNDLED_E = js_re(r"^-[a-zA-Z]*e$")
_SOCAT_EXEC = js_re(r"^(exec|system):", "i")
_SOCAT_NET = js_re(r"^(tcp|udp|ssl|openssl)[\w-]*:", "i")


def reverse_shell(argv: Sequence[str], stages: Sequence[SimpleCommand]) -> bool:
    """`nc -e /bin/sh …`, `socat exec:bash tcp:…`, `sh -i … | nc …`: a shell driven over the network."""
    program = argv[0] if argv else ""
    args = argv[1:]
    if _NC.search(program) and any(_NC_EXEC.search(a) or _NC_BUNDLED_E.search(a) for a in args):
        return True
    if program == "socat" and any(_SOCAT_EXEC.search(a) for a in args) and any(_SOCAT_NET.search(a) for a in args):
        return True
    if len(stages) < 2:
        return False
    programs: List[str] = [program_name(s.argv[0] if s.argv else "") for s in stages]
    return any(p in SHELLS for p in programs) and any(_NETCATS.search(p) for p in programs)
