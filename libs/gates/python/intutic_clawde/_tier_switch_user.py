"""Running as another user or group (a port of libs/governance/src/tier/switch-user.ts).

`su [-] [user] -c CMD`, `su user` reading commands from its standard input, `runuser -u user -- CMD…`,
`sg group -c CMD`, `newgrp group`, `pkexec CMD…`, `machinectl shell [user@] CMD…`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional, Sequence

from ._jsre import js_re

SWITCH_USERS = js_re(r"^(su|runuser|sg|newgrp|pkexec|machinectl)$")
_SU_WITH_ARG = {"-c", "--command", "-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w", "--whitelist-environment", "-u", "--user", "-C", "--session-command"}
_BUNDLE = js_re(r"^-[a-zA-Z]+$")


@dataclass
class SwitchedUser:
    #: The command run directly (`runuser -u u -- cmd`, `pkexec cmd`), or None.
    argv: Optional[List[str]]
    #: Scripts given to the user's shell (`-c`).
    shells: List[str] = field(default_factory=list)
    #: The user's shell reads its commands from standard input.
    stdin: bool = False


def _su(args: Sequence[str], program: str) -> SwitchedUser:
    shells: List[str] = []
    operands: List[str] = []
    command_user = False
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            if command_user:
                return SwitchedUser(list(args[i + 1 :]), shells, False)
            operands.extend(args[i + 1 :])
            break
        long = a.split("=")[0] if a.startswith("--") else None
        if long is not None and "=" in a:
            if long in ("--command", "--session-command"):
                shells.append(a[a.index("=") + 1 :])
            if long == "--user":
                command_user = True
            i += 1
            continue
        if a in _SU_WITH_ARG:
            if a in ("-c", "--command", "-C", "--session-command"):
                shells.append(args[i + 1] if i + 1 < len(args) else "")
            if program == "runuser" and a in ("-u", "--user"):
                command_user = True
            i += 2
            continue
        if _BUNDLE.search(a) and a != "-":
            at = next((k for k, ch in enumerate(a[1:]) if ch in "csgGwuC"), -1)
            if at != -1:
                ch = a[at + 1]
                value = a[at + 2 :]
                if value == "":
                    i += 1
                    value = args[i] if i < len(args) else ""
                if ch in ("c", "C"):
                    shells.append(value)
                if ch == "u" and program == "runuser":
                    command_user = True
            i += 1
            continue
        if a == "-" or a.startswith("-"):
            i += 1
            continue
        if command_user:
            return SwitchedUser(list(args[i:]), shells, False)
        operands.append(a)
        i += 1
    extra = operands[1:]
    if extra and extra[0] == "-c":
        shells.append(extra[1] if len(extra) > 1 else "")
    return SwitchedUser(None, shells, len(shells) == 0)


def switch_user(program: str, args: Sequence[str]) -> SwitchedUser:
    if program in ("su", "runuser"):
        return _su(args, program)
    if program == "sg":
        rest = [a for a in args if a != "-"]
        if "-c" in rest:
            c = rest.index("-c")
            return SwitchedUser(None, [rest[c + 1] if c + 1 < len(rest) else ""], False)
        return SwitchedUser(None, [" ".join(rest[1:])], False) if len(rest) > 1 else SwitchedUser(None, [], True)
    if program == "newgrp":
        return SwitchedUser(None, [], True)
    if program == "pkexec":
        i = 0
        while i < len(args) and args[i].startswith("-"):
            i += 2 if args[i] == "--user" else 1
        return SwitchedUser(list(args[i:]), [], False) if i < len(args) else SwitchedUser(None, [], True)
    if next((a for a in args if not a.startswith("-")), None) != "shell":
        return SwitchedUser(None, [], False)
    rest = list(args[list(args).index("shell") + 1 :])
    while rest and rest[0].startswith("-"):
        rest = rest[2 if rest[0] in ("--uid", "-E", "--setenv") else 1 :]
    cmd = rest[1:] if rest and ("@" in rest[0] or rest[0] == ".host") else rest
    return SwitchedUser(cmd, [], False) if cmd else SwitchedUser(None, [], True)
