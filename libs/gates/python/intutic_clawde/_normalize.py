"""Normalization before matching (a port of libs/governance/src/normalize.ts).

Strip what changes how a command is spelled but not what it does -- `VAR=x` prefixes, shell
keywords, wrappers (sudo, doas, env, nice, timeout, strace, chroot, flock, unshare, xargs,
docker/kubectl exec, npx …, each with its own options), path prefixes on the program (`/bin/rm`,
`\\rm`) -- and surface what a command runs itself: shell scripts (`bash -c`, `su -c`, `eval`,
`watch`, `script -c`, `env -S`), interpreter code (`python -c`, `node -e`, `awk '…'`) and commands
it runs without a shell (`find -exec`, `parallel`).
"""
from __future__ import annotations

from typing import List, Optional, Sequence

from ._invocations import at_reads_stdin, tmux_commands
from ._jsre import js_re, js_replace
from ._shell_types import EffectiveCommand, Inner
from ._wrappers import ASSIGNMENT, WRAPPERS, container_command, skip_options, unwrap_env, wrapper
from ._tier_switch_user import SWITCH_USERS, switch_user

__all__ = ["ASSIGNMENT", "SHELLS", "EffectiveCommand", "Inner", "effective_command", "interpreter_of", "program_name"]


SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "fish", "yash", "posh", "csh", "tcsh", "rbash"}
_KEYWORDS = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}", "case", "esac", "in", "coproc"}


#: Interpreters and the options that carry their code.
_CODE_OPTS = [
    (js_re(r"^(python[\d.]*|pypy[\d.]*)$"), ["-c"]),
    (js_re(r"^perl[\d.]*$"), ["-e", "-E"]),
    (js_re(r"^(ruby|jruby)$"), ["-e"]),
    (js_re(r"^(node|nodejs|bun|deno|ts-node|tsx)$"), ["-e", "--eval", "-p", "--print"]),
    (js_re(r"^php[\d.]*$"), ["-r"]),
    (js_re(r"^(lua|luajit|Rscript|julia|tclsh|osascript|jshell|groovy)$"), ["-e"]),
]
_AWKS = {"awk", "gawk", "mawk", "nawk", "busybox-awk"}
_LEADING_BACKSLASHES = js_re(r"^\\+")
_EXE = js_re(r"\.exe$", "i")
_SHORT_OPTS = js_re(r"^-[A-Za-z]+$")
_SHORT_OPTS_ANY_CASE = js_re(r"^-[a-zA-Z]+$")
_VERSION_TAG = js_re(r"@[^/]*$")
_BRACES = js_re(r"\{\}", "g")


def _arg(args: Sequence[str], i: int, default: str = "") -> str:
    return args[i] if 0 <= i < len(args) else default


def program_name(word: str) -> str:
    bare = _LEADING_BACKSLASHES.sub("", word, count=1)
    slash = bare.rfind("/")
    return _EXE.sub("", bare if slash == -1 else bare[slash + 1 :], count=1)


def interpreter_of(program: str) -> Optional[List[str]]:
    return next((opts for rx, opts in _CODE_OPTS if rx.search(program)), None)


def _shell_invocation(args: List[str], inner: List[Inner]) -> Optional[str]:
    """`sh -c SCRIPT [$0 $1 …]`, `sh -s`, `sh FILE`, or `sh` alone (reads its standard input)."""
    saw_c = False
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            i += 1
        elif a == "-" or a == "-s" or (_SHORT_OPTS.search(a) and "s" in a and "c" not in a):
            return "shell"
        elif _SHORT_OPTS.search(a):
            saw_c = saw_c or "c" in a
        elif a != "--" and not a.startswith("--") and not a.startswith("+"):
            if saw_c:
                inner.append(Inner("shell", text=a, args=args[i + 2 :], arg0=args[i + 1] if i + 1 < len(args) else None))
            elif a in ("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"):
                return "shell"
            return None  # a script file: what it holds is not on the command line
        i += 1
    return None if saw_c else "shell"


def _code_invocation(program: str, opts: List[str], args: List[str], inner: List[Inner]) -> Optional[str]:
    code: List[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        bundled = _SHORT_OPTS_ANY_CASE.search(a) is not None and any(len(o) == 2 and a.endswith(o[1]) for o in opts)
        if a in opts or bundled:
            i += 1
            code.append(_arg(args, i))
        elif any(o.startswith("--") and a.startswith(f"{o}=") for o in opts):
            code.append(a[a.index("=") + 1 :])
        elif a == "-m" or a == "-" or (not a.startswith("-") and not code):
            if a == "-":
                return "code"
            if not code:
                return None  # a module or a script file
            break
        elif a in ("-W", "-X", "-I", "-r", "--require", "--import", "--loader"):
            i += 1
        i += 1
    if code:
        inner.append(Inner("code", program=program, text="\n".join(code)))
    return None if code else "code"


def _find_execs(args: List[str]) -> List[Inner]:
    execs: List[Inner] = []
    i = 0
    while i < len(args):
        if args[i] in ("-exec", "-execdir", "-ok", "-okdir"):
            end = i + 1
            while end < len(args) and args[end] not in (";", "+"):
                end += 1
            execs.append(Inner("exec", args=args[i + 1 : end]))
            i = end
        i += 1
    return execs


# Editors and debuggers that run shell escapes from their command-line commands.
_ESCAPING = js_re(r"^(vim?|nvim|ex|view|rvim|gvim|gdb|lldb)$")
_DEBUGGER_OPTS = ("-ex", "--ex", "-eval-command", "--eval-command", "-o", "--one-line", "-O", "--one-line-before-file")
_DEBUGGER_LONG = js_re(r"^--?(ex|eval-command|one-line)=")
_BANG = js_re(r"^[\s:]*[%.$,'\d\s]*!(.*)$", "s")
_SHELL_CMD = js_re(r"^\s*(?:platform\s+)?shell\s+(.*)$", "s")


def _escape_commands(program: str, args: List[str]) -> List[Inner]:
    """Shell escapes in an editor's or debugger's startup commands: `vim -c ':!rm -rf ~'`, `vim +'%!…'`,
    `gdb -ex 'shell …'`, `lldb -o 'platform shell …'`."""
    debugger = program in ("gdb", "lldb")
    takes = _DEBUGGER_OPTS if debugger else ("-c", "--cmd")
    cmds: List[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a in takes:
            i += 1
            cmds.append(args[i] if i < len(args) else "")
        elif debugger and _DEBUGGER_LONG.search(a):
            cmds.append(a[a.index("=") + 1 :])
        elif not debugger and len(a) > 1 and a.startswith("+"):
            cmds.append(a[1:])
        i += 1
    out: List[Inner] = []
    for c in cmds:
        m = _BANG.search(c) or _SHELL_CMD.search(c)
        if m:
            out.append(Inner("shell", text=m.group(1)))
    return out


_PACKAGE_RUNNERS = {"npm": ["exec", "x"], "pnpm": ["dlx", "exec"], "yarn": ["dlx", "exec"], "bun": ["x"]}
_CONTAINER_PROGRAMS = ("docker", "podman", "nerdctl", "kubectl", "oc", "docker-compose", "podman-compose")


def effective_command(argv: Sequence[str]) -> EffectiveCommand:
    """Normalize one simple command's (expanded) argv."""
    inner: List[Inner] = []
    args = list(argv)
    guard = 0
    while guard < 32 and args:
        while args and (ASSIGNMENT.search(args[0]) or args[0] in _KEYWORDS):
            args.pop(0)
        if args and args[0] == "function":
            # `function f { ...; }`: the body's first command follows the name and the brace.
            args = args[2:]
            while args and args[0] in _KEYWORDS:
                args.pop(0)
        if not args:
            break
        program = program_name(args[0])
        rest = args[1:]
        runner = _PACKAGE_RUNNERS.get(program)
        in_container = container_command(program, ["compose", *rest] if program.endswith("-compose") else rest) if program in _CONTAINER_PROGRAMS else None
        if program == "env":
            args = unwrap_env(rest, inner)
        elif program == "command" and _arg(rest, 0) in ("-v", "-V"):
            return EffectiveCommand([program, *rest], inner, None)
        elif in_container is not None:
            args = in_container
        elif runner and _arg(rest, 0) in runner:
            args = skip_options(rest[1:], wrapper("p", ["--package"]), inner)
        elif program in ("yarn", "pnpm") and rest and not rest[0].startswith("-"):
            args = rest
        elif program in ("watch", "parallel", "ssh"):
            cmd = skip_options(rest, WRAPPERS[program], inner)
            sep = cmd.index(":::") if ":::" in cmd else -1
            words = cmd if sep == -1 else cmd[:sep]
            operands = [""] if sep == -1 else cmd[sep + 1 :]
            for o in operands:
                if any("{}" in w for w in words):
                    text = " ".join(js_replace(_BRACES, w, o, True) for w in words)
                else:
                    text = " ".join([*words, o])
                inner.append(Inner("shell", text=text))
            return EffectiveCommand([program, *rest], inner, None)
        elif program in ("busybox", "toybox"):
            args = rest
        elif SWITCH_USERS.search(program):
            switched = switch_user(program, rest)
            for text in switched.shells:
                inner.append(Inner("shell", text=text))
            if switched.argv is None:
                return EffectiveCommand([program, *rest], inner, "shell" if switched.stdin else None)
            args = switched.argv
        elif program in WRAPPERS:
            skipped = skip_options(rest, WRAPPERS[program], inner)
            if program == "xargs":
                whole = any(a in ("-0", "--null") or _XARGS_NUL.search(a) or _XARGS_DELIM.search(a) for a in rest)
                return EffectiveCommand([program_name(skipped[0]), *skipped[1:]] if skipped else ["echo"], inner, "xargs", _xargs_replace(rest), whole)
            if program == "chroot" and not skipped:
                return EffectiveCommand([program, *rest], inner, "shell")
            # `sudo -i`, `sudo -s`, `doas -s` with no command: a shell that reads its standard input.
            if program in ("sudo", "doas") and not skipped and any(_SUDO_SHELL.search(a) or a in ("--login", "--shell") for a in rest):
                return EffectiveCommand([program, *rest], inner, "shell")
            args = skipped
        else:
            args = [_VERSION_TAG.sub("", program, count=1), *rest]
            break
        guard += 1
    program = args[0] if args else ""
    stdin: Optional[str] = None
    code_opts = interpreter_of(program)
    if program in SHELLS:
        stdin = _shell_invocation(args[1:], inner)
    elif program in ("su", "runuser"):
        skip_options(args[1:], WRAPPERS["runuser"], inner)
    elif program == "eval":
        inner.append(Inner("shell", text=" ".join(args[1:])))
    elif program in ("source", ".") and _arg(args, 1) in ("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-"):
        stdin = "shell"
    elif program == "deno" and _arg(args, 1, None) == "eval":  # type: ignore[arg-type]
        inner.append(Inner("code", program=program, text=_arg(args, 2)))
    elif code_opts and program in ("deno", "bun") and _arg(args, 1, None) == "run":  # type: ignore[arg-type]
        stdin = _code_invocation(program, code_opts, args[2:], inner)
    elif code_opts:
        stdin = _code_invocation(program, code_opts, args[1:], inner)
    elif program in _AWKS:
        stdin = _awk_program(args[1:], inner)
    elif program == "find":
        inner.extend(_find_execs(args[1:]))
    elif _ESCAPING.search(program):
        inner.extend(_escape_commands(program, args[1:]))
    elif program == "tmux":
        inner.extend(tmux_commands(args[1:]))
    elif program in ("at", "batch"):
        stdin = at_reads_stdin(args[1:])
    return EffectiveCommand(args, inner, stdin)


_SUDO_SHELL = js_re(r"^-[a-zA-Z]*[is]")
_XARGS_NUL = js_re(r"^-[a-zA-Z]*0$")
_XARGS_DELIM = js_re(r"^(-d|--delimiter)=?")


def _xargs_replace(args: List[str]) -> Optional[str]:
    for i, a in enumerate(args):
        if a in ("-I", "--replace"):
            return _arg(args, i + 1, "{}")
        if a.startswith("-I") or a.startswith("-i"):
            return a[2:] or "{}"
        if a.startswith("--replace="):
            return a[10:]
        if not a.startswith("-"):
            break
    return None


def _awk_program(args: List[str], inner: List[Inner]) -> Optional[str]:
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-f", "--file"):
            return "code" if _arg(args, i + 1) in ("-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0") else None
        if a in ("-F", "-v", "--assign", "--field-separator"):
            i += 1
        elif not a.startswith("-") or a == "--":
            inner.append(Inner("code", program="awk", text=_arg(args, i + 1) if a == "--" else a))
            return None
        i += 1
    return None
