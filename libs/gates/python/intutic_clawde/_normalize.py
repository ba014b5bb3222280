"""Normalization before matching (a port of libs/governance/src/normalize.ts and paths.ts).

Strips what changes how a command is spelled but not what it does (VAR=x prefixes, keywords,
wrappers such as sudo, env, nohup, timeout, xargs; path prefixes on the program) and surfaces the
scripts a command runs itself (bash -c, su -c, eval, env -S, find -exec). Also: where a path
argument points, with `cd` tracked.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

from ._shell import ShellScript, parse_shell

SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "fish", "yash", "posh"}
KEYWORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "case", "esac", "in"}
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\+?=")

_WRAPPERS: Dict[str, Tuple[Set[str], int]] = {
    "sudo": ({"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "-R", "--user", "--group", "--host", "--prompt", "--chdir", "--role", "--type", "--other-user", "--close-from", "--command-timeout", "--chroot"}, 0),
    "doas": ({"-u", "-C"}, 0),
    "nohup": (set(), 0),
    "time": ({"-o", "-f", "--output", "--format"}, 0),
    "nice": ({"-n", "--adjustment"}, 0),
    "ionice": ({"-c", "-n", "-p", "-P", "-u", "--class", "--classdata"}, 0),
    "stdbuf": ({"-i", "-o", "-e"}, 0),
    "setsid": (set(), 0),
    "chrt": ({"-T", "-P", "-D"}, 1),
    "taskset": (set(), 1),
    "timeout": ({"-s", "-k", "--signal", "--kill-after"}, 1),
    "xargs": ({"-I", "-i", "-n", "-P", "-L", "-l", "-d", "-E", "-e", "-s", "-a", "--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-lines", "--replace"}, 0),
    "exec": ({"-a"}, 0),
    "builtin": (set(), 0),
    "busybox": (set(), 0),
    "unbuffer": (set(), 0),
    "caffeinate": ({"-t", "-w"}, 0),
}


@dataclass
class EffectiveCommand:
    argv: List[str]
    scripts: List[ShellScript] = field(default_factory=list)
    execs: List[List[str]] = field(default_factory=list)


def program_name(word: str) -> str:
    bare = word.lstrip("\\")
    return bare.rsplit("/", 1)[-1]


def _skip_options(args: List[str], with_arg: Set[str], positional: int = 0) -> List[str]:
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            i += 1
            break
        if not a.startswith("-") or a == "-":
            break
        name = a.split("=", 1)[0]
        i += 2 if name in with_arg and "=" not in a else 1
    return args[i + positional :]


def _unwrap_env(args: List[str], scripts: List[ShellScript]) -> List[str]:
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            return args[i + 1 :]
        if a in ("-S", "--split-string"):
            scripts.append(parse_shell(" ".join([args[i + 1] if i + 1 < len(args) else ""] + args[i + 2 :])))
            return []
        if a.startswith("--split-string=") or (a.startswith("-S") and len(a) > 2):
            first = a[2:] if a.startswith("-S") else a.split("=", 1)[1]
            scripts.append(parse_shell(" ".join([first] + args[i + 1 :])))
            return []
        if a in ("-u", "--unset", "-C", "--chdir"):
            i += 2
        elif a.startswith("-") or ASSIGNMENT.match(a):
            i += 1
        else:
            break
    return args[i:]


def _shell_script_arg(args: List[str]) -> Optional[str]:
    saw_c = False
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            i += 2
            continue
        if a == "--":
            i += 1
            continue
        if re.fullmatch(r"-[A-Za-z]+", a):
            saw_c = saw_c or "c" in a
            i += 1
            continue
        if a.startswith("--") or a.startswith("+"):
            i += 1
            continue
        return a if saw_c else None
    return None


def _su_script_arg(args: List[str]) -> Optional[str]:
    for i, a in enumerate(args):
        if a in ("-c", "--command"):
            return args[i + 1] if i + 1 < len(args) else None
        if a.startswith("--command="):
            return a[len("--command=") :]
    return None


def _find_execs(args: List[str]) -> List[List[str]]:
    execs = []
    i = 0
    while i < len(args):
        if args[i] in ("-exec", "-execdir", "-ok", "-okdir"):
            start = end = i + 1
            while end < len(args) and args[end] not in (";", "+"):
                end += 1
            execs.append(args[start:end])
            i = end
        i += 1
    return execs


def effective_command(argv: List[str]) -> EffectiveCommand:
    scripts: List[ShellScript] = []
    args = list(argv)
    for _ in range(32):
        while args and (ASSIGNMENT.match(args[0]) or args[0] in KEYWORDS):
            args.pop(0)
        if not args:
            break
        program = program_name(args[0])
        rest = args[1:]
        if program == "env":
            args = _unwrap_env(rest, scripts)
        elif program == "command":
            if rest[:1] in (["-v"], ["-V"]):
                return EffectiveCommand([program] + rest, scripts, [])
            args = _skip_options(rest, set())
        elif program in _WRAPPERS:
            with_arg, positional = _WRAPPERS[program]
            args = _skip_options(rest, with_arg, positional)
        else:
            args = [program] + rest
            break
    program = args[0] if args else ""
    if program in SHELLS:
        script = _shell_script_arg(args[1:])
        if script is not None:
            scripts.append(parse_shell(script))
    elif program in ("su", "runuser"):
        script = _su_script_arg(args[1:])
        if script is not None:
            scripts.append(parse_shell(script))
    elif program == "eval":
        scripts.append(parse_shell(" ".join(args[1:])))
    return EffectiveCommand(args, scripts, _find_execs(args[1:]) if program == "find" else [])


def normalized_segments(script: ShellScript, depth: int = 0) -> List[str]:
    out: List[str] = []
    if depth > 8:
        return out
    for pipeline in script.pipelines:
        for c in pipeline:
            if c.group is not None:
                out.extend(normalized_segments(c.group, depth + 1))
            for sub in c.substitutions:
                out.extend(normalized_segments(sub, depth + 1))
            eff = effective_command(c.argv)
            if eff.argv:
                out.append(" ".join(eff.argv))
            for nested in eff.scripts:
                out.extend(normalized_segments(nested, depth + 1))
            for e in eff.execs:
                if e:
                    out.append(" ".join([program_name(e[0])] + e[1:]))
    return out


# --- where paths point -------------------------------------------------------------------------

_SYSTEM_TOP = set("bin boot dev etc home lib lib32 lib64 libx32 opt proc root sbin srv sys usr var mnt media snap System Users Applications Library private Volumes".split())
_SYSTEM_SECOND = set("usr/bin usr/lib usr/lib64 usr/local usr/sbin usr/share var/lib System/Library private/etc private/var".split())
_PWD_PREFIX = re.compile(r"^(\$PWD|\$\{PWD\}|\$\(pwd\)|`pwd`)(?=/|$)")
_HOME_PREFIX = re.compile(r"^(~[A-Za-z0-9_.-]*|\$HOME|\$\{HOME\})(?=/|$)")

Dir = Tuple[str, List[str]]  # (base: abs|home|ws|unknown, segments)


def split_path(path: str) -> List[str]:
    return [s for s in path.split("/") if s not in ("", ".")]


def _join(d: Dir, rel: List[str]) -> Dir:
    base, segs = d[0], list(d[1])
    for s in rel:
        if s != "..":
            segs.append(s)
        elif segs and segs[-1] != "..":
            segs.pop()
        elif base != "abs":
            segs.append("..")
    return (base, segs)


def initial_dir(cwd: Optional[str]) -> Dir:
    return ("abs", _join(("abs", []), split_path(cwd))[1]) if cwd and cwd.startswith("/") else ("ws", [])


def resolve_path(d: Dir, word: str) -> Dir:
    if word.startswith("/"):
        return _join(("abs", []), split_path(word))
    m = _HOME_PREFIX.match(word)
    if m:
        return _join(("home", []), split_path(word[len(m.group(0)) :]))
    m = _PWD_PREFIX.match(word)
    if m:
        return _join(d, split_path(word[len(m.group(0)) :]))
    if word.startswith("$") or word.startswith("`"):
        return ("unknown", [])
    return _join(d, split_path(word))


def classify_dir(d: Dir, cwd: Optional[str], home: Optional[str]) -> Optional[str]:
    base, segs = d
    if base == "unknown":
        return None
    if base == "home":
        return "home" if not segs else ("ancestor" if segs[0] == ".." else None)
    if base == "ws":
        return None if any(s != ".." for s in segs) else ("workspace" if not segs else "ancestor")
    if not segs:
        return "root"
    if home and home.startswith("/") and "/".join(segs) == "/".join(split_path(home)):
        return "home"
    if cwd and cwd.startswith("/"):
        ws = split_path(cwd)
        if segs == ws:
            return "workspace"
        if len(segs) < len(ws) and ws[: len(segs)] == segs:
            return "ancestor"
    if len(segs) == 1 and segs[0] in _SYSTEM_TOP:
        return "system"
    if len(segs) == 2 and "/".join(segs) in _SYSTEM_SECOND:
        return "system"
    return None


def classify_target(d: Dir, word: str, cwd: Optional[str], home: Optional[str]) -> Optional[str]:
    trimmed = (re.sub(r"/+$", "", word) or "/") if len(word) > 1 else word
    last_slash = trimmed.rfind("/")
    last = trimmed[last_slash + 1 :]
    if last in ("*", ".*", "{*,.*}", "{.*,*}"):
        parent = "." if last_slash == -1 else (trimmed[:last_slash] or "/")
        return classify_dir(resolve_path(d, parent), cwd, home)
    if re.search(r"[*?\[]", last):
        return None
    return classify_dir(resolve_path(d, trimmed), cwd, home)


def change_dir(d: Dir, args: List[str]) -> Dir:
    target = next((a for a in args if not a.startswith("-") or a == "-"), None)
    if target is None:
        return ("home", [])
    if target == "-":
        return ("unknown", [])
    return resolve_path(d, target)
