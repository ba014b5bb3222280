"""Writing into what runs later without a tool call (a port of libs/governance/src/tier/startup-files.ts).

A line appended to a shell start-up file is run by every shell the agent starts next, so what echo or
printf writes there is judged now as a command; an append to ~/.ssh (known_hosts aside) is a
protected write, as writing there with `>` is. So is an append to the system files that grant
access or run code for every user or at boot (/etc/sudoers, /etc/passwd, /etc/crontab,
/etc/profile.d/…, /etc/ld.so.preload …); /etc/hosts, resolv.conf, apt sources and sysctl.conf stay
the everyday appends they are.
"""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

from ._jsre import js_re
from ._disk import path_forms
from ._paths import absolute_path, home_of

_STARTUP = js_re(
    r"^(\.bashrc|\.bash_profile|\.bash_login|\.bash_logout|\.bash_aliases|\.profile|\.zshrc|\.zprofile|\.zshenv|\.zlogin|\.zlogout|\.kshrc|\.mkshrc|\.cshrc|\.tcshrc|\.config\/fish\/config\.fish)$"
)
_WRITES = {">", ">>", ">|", "&>", "&>>"}
_SYSTEM_GRANTS = js_re(
    r"^\/etc\/(sudoers|sudoers\.d\/.+|passwd|shadow|group|gshadow|subuid|subgid|crontab|anacrontab|cron\.[^/]+\/.+|profile|profile\.d\/.+|bash\.bashrc|bashrc|zshenv|zshrc|zprofile|zsh\/.+|environment|ld\.so\.preload|ld\.so\.conf|ld\.so\.conf\.d\/.+|rc\.local|pam\.d\/.+|security\/.+|ssh\/.+|systemd\/.+|init\.d\/.+|xdg\/autostart\/.+)$"
)
_ECHO_OPT = js_re(r"^-[neE]+$")
_FORMAT = js_re(r"%[-\d.]*[sbdq]")
_TEE_APPEND = js_re(r"^-[a-zA-Z]*a$|^--append$")
_SSH = js_re(r"^\.ssh(\/|$)")
_KNOWN_HOSTS = js_re(r"^\.ssh\/known_hosts$")
_EVAL_INIT = js_re(r"\beval\s+\"\$\([^)]*\)\"")


def _unescape(s: str) -> str:
    return s.replace("\\n", "\n").replace("\\t", "\t")


def _printed(program: str, args: Sequence[str]) -> Optional[str]:
    """echo's or printf's output, as near as the command line tells it."""
    if program == "echo":
        i = 0
        while i < len(args) and _ECHO_OPT.search(args[i]):
            i += 1
        return _unescape(" ".join(args[i:]))
    if program == "printf":
        rest = list(args[1:]) if args[:1] == ["--"] else list(args)
        fmt = rest[0] if rest else ""
        values = rest[1:]
        return _unescape("\n".join([_FORMAT.sub("", fmt), *values])) if "%" in fmt else _unescape(fmt)
    return None


def startup_file_writes(argv: Sequence[str], redirects: Sequence[Any], scope: Any) -> Tuple[Optional[tuple], List[str]]:
    """The hit for an append to ~/.ssh, and what echo/printf writes into a start-up file (to be judged as a command line)."""
    program = argv[0] if argv else ""
    args = list(argv[1:])
    home = home_of(scope.ctx)

    def in_home(t: str) -> str:
        abs_path = absolute_path(scope.dir, t, scope.ctx)
        return abs_path[len(home) + 1 :] if abs_path.startswith(home + "/") else ""

    appends = [r.target for r in redirects if r.op in (">>", "&>>")]
    if program == "tee" and any(_TEE_APPEND.search(a) for a in args):
        appends.extend(a for a in args if not a.startswith("-"))
    ssh = next((t for t in appends if _SSH.search(in_home(t)) and not _KNOWN_HOSTS.search(in_home(t))), None)
    if ssh is not None:
        return ("destructive.protected_file", f"appending to {ssh}"), []
    system = next((t for t in appends if any(_SYSTEM_GRANTS.search(p) for p in path_forms(absolute_path(scope.dir, t, scope.ctx), scope.ctx))), None)
    if system is not None:
        return ("destructive.protected_file", f"appending to {system}"), []
    startup = any(r.op in _WRITES and _STARTUP.search(in_home(r.target)) for r in redirects)
    text = _printed(program, args) if startup else None
    if text:
        text = _EVAL_INIT.sub("true", text)
    return None, [text] if text else []
