"""Wrappers and their options (from libs/governance/src/normalize.ts): the table of wrappers
(sudo, doas, env, nice, timeout, strace, chroot, flock, xargs, ssh, npx …) and the getopt-style
skipping of their options, `env`'s own options, and `docker/kubectl exec`'s.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from ._container_mounts import host_command
from ._jsre import js_re
from ._shell_types import Inner

ASSIGNMENT = js_re(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
_NEGATIVE_NUMBER = js_re(r"^-\d+$")


def _arg(args: Sequence[str], i: int, default: Any = "") -> Any:
    return args[i] if 0 <= i < len(args) else default


def wrapper(short: str = "", long: Sequence[str] = (), positional: int = 0, shell_opt: Sequence[str] = ()) -> Dict[str, Any]:
    return {"short": short, "long": list(long), "positional": positional, "shell_opt": list(shell_opt)}


WRAPPERS: Dict[str, Dict[str, Any]] = {
    "sudo": wrapper("ughpCDrtUTR", ["--user", "--group", "--host", "--prompt", "--chdir", "--role", "--type", "--other-user", "--close-from", "--command-timeout", "--chroot"]),
    "doas": wrapper("uC"),
    "nohup": wrapper(),
    "time": wrapper("of", ["--output", "--format"]),
    "nice": wrapper("n", ["--adjustment"]),
    "renice": wrapper("npgu"),
    "ionice": wrapper("cnpPut", ["--class", "--classdata"]),
    "stdbuf": wrapper("ioe"),
    "setsid": wrapper(),
    "chrt": wrapper("TPD", positional=1),
    "taskset": wrapper(positional=1),
    "timeout": wrapper("sk", ["--signal", "--kill-after"], 1),
    "exec": wrapper("a"),
    "builtin": wrapper(),
    "command": wrapper(),
    "noglob": wrapper(),
    "unbuffer": wrapper(),
    "caffeinate": wrapper("tw"),
    "chronic": wrapper(),
    "strace": wrapper("oepsuEaIOPSXb", ["--output", "--expr", "--attach", "--user", "--env"]),
    "ltrace": wrapper("oepsunaAlL"),
    "chroot": wrapper("", ["--userspec", "--groups"], 1),
    "flock": wrapper("wEc", ["--timeout", "--conflict-exit-code", "--command"], 1, ["-c", "--command"]),
    "unshare": wrapper("SGRwl", ["--setuid", "--setgid", "--root", "--wd", "--map-user", "--map-group"]),
    "nsenter": wrapper("tSGrwe", ["--target", "--setuid", "--setgid", "--root", "--wd"]),
    "setpriv": wrapper("", ["--reuid", "--regid", "--groups", "--inh-caps", "--ambient-caps", "--bounding-set", "--securebits", "--selinux-label", "--apparmor-profile"]),
    "systemd-run": wrapper("pEuM", ["--unit", "--property", "--setenv", "--machine", "--description", "--slice"]),
    "firejail": wrapper(),
    "proot": wrapper("rbwq"),
    "runuser": wrapper("ugc", ["--user", "--group", "--command"], 0, ["-c", "--command"]),
    "watch": wrapper("n", ["--interval"]),
    "script": wrapper("cEIOTBt", ["--command", "--echo", "--log-in", "--log-out", "--log-timing"], 0, ["-c", "--command"]),
    "busybox": wrapper(),
    "screen": wrapper("ScepTth"),
    "toybox": wrapper(),
    "xargs": wrapper("InPLldEesa", ["--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-lines", "--replace", "--eof"]),
    "parallel": wrapper("jSX", ["--jobs", "--sshlogin", "--joblog", "--halt", "--delay", "--timeout"]),
    "ssh": wrapper("pilFJLRDbcEemOQSWwBo", positional=1),
    "npx": wrapper("pc", ["--package", "--call"], 0, ["-c", "--call"]),
    "bunx": wrapper("p", ["--package"]),
}

def skip_options(args: List[str], w: Dict[str, Any], scripts: List[Inner]) -> List[str]:
    """Skip a wrapper's options, getopt-style (`-iu root`, `-uroot`, `--user=root`); collect shell-command options."""
    short = w.get("short", "")
    long = w.get("long", [])
    shell_opt = w.get("shell_opt", [])
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            i += 1
            break
        if not a.startswith("-") or a == "-":
            break
        if _NEGATIVE_NUMBER.search(a):
            i += 1  # nice -19
            continue
        name = a.split("=")[0] if a.startswith("--") else a
        if a.startswith("--"):
            takes = name in long and "=" not in a
            if name in shell_opt:
                scripts.append(Inner("shell", text=a[a.index("=") + 1 :] if "=" in a else _arg(args, i + 1)))
            i += 2 if takes else 1
            continue
        # A bundle of short options: the first one that takes an argument ends it.
        consumed = 1
        for k in range(1, len(a)):
            if a[k] not in short:
                continue
            attached = a[k + 1 :]
            value = attached if attached != "" else _arg(args, i + 1)
            if attached == "":
                consumed = 2
            if f"-{a[k]}" in shell_opt:
                scripts.append(Inner("shell", text=value))
            break
        i += consumed
    return args[min(len(args), i + w.get("positional", 0)) :]


def unwrap_env(args: List[str], scripts: List[Inner]) -> List[str]:
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            return args[i + 1 :]
        if a in ("-S", "--split-string") or a.startswith("--split-string=") or (a.startswith("-S") and len(a) > 2):
            # `env -S "rm -rf /"` splits its argument into words itself: a command line.
            if a in ("-S", "--split-string"):
                i += 1
                first = _arg(args, i)
            elif a.startswith("-S"):
                first = a[2:]
            else:
                first = a[a.index("=") + 1 :]
            scripts.append(Inner("shell", text=" ".join([first, *args[i + 1 :]])))
            return []
        if a in ("-u", "--unset", "-C", "--chdir"):
            i += 2
        elif a.startswith("-") or ASSIGNMENT.search(a):
            i += 1
        else:
            break
    return args[i:]


_CONTAINER_LONG = ["--env", "--user", "--workdir", "--env-file", "--detach-keys", "--name", "--network", "--entrypoint", "--volume", "--mount", "--publish", "--label", "--platform", "--hostname", "--memory", "--cpus", "--add-host", "--cap-add", "--cap-drop", "--device", "--shm-size", "--ulimit", "--tmpfs", "--pull", "--restart", "--service-ports"]


def container_command(program: str, args: List[str]) -> Optional[List[str]]:
    """`docker exec [opts] CONTAINER cmd…`, `kubectl exec POD -- cmd…`, `docker compose exec SERVICE cmd…`."""
    if program in ("kubectl", "oc"):
        if _arg(args, 0, None) != "exec":  # type: ignore[arg-type]
            return None
        if "--" in args:
            return args[args.index("--") + 1 :]
        return skip_options(args[1:], wrapper("ncf", ["--namespace", "--container", "--filename"], 1), [])
    rest = args
    if _arg(rest, 0, None) == "compose":  # type: ignore[arg-type]
        rest = skip_options(rest[1:], wrapper("fp", ["--file", "--project-name", "--profile", "--env-file"]), [])
    sub = _arg(rest, 0, None)  # type: ignore[arg-type]
    if sub not in ("exec", "run"):
        return None
    command = skip_options(rest[1:], wrapper("euwvpl" + "hm", _CONTAINER_LONG, 1), [])
    return host_command(command, rest[1 : len(rest) - len(command)]) if sub == "run" else command
