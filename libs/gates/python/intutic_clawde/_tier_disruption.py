"""Taking the machine or everything on it down (a port of libs/governance/src/tier/disruption.ts).

Signalling every process (`kill -9 -1`, `pkill`/`killall` of a whole user, `killall5`) or process 1,
powering off, rebooting or leaving multi-user mode (`shutdown`, `reboot`, `init 0`, `telinit 1`,
`systemctl reboot`, `systemctl isolate rescue.target`), its firewall or network (_tier_network),
stopping a service the machine's reach, containers or logins rest on (`systemctl stop sshd`,
`systemctl disable --now docker`), deleting an account or a password (`userdel -r`, `passwd -d`),
granting an account root through its groups (`usermod -aG sudo x`), remounting read-only, mounting
over or unmounting a system mount or the workspace, and remote teardowns: an HTTP DELETE of every
index of a search store or of a whole repository (`curl -X DELETE es:9200/_all`), deleting a GitHub
repository, release or gist through `gh`, or a published package (`npm unpublish`).
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from ._jsre import js_re
from ._tier_macos import macos_hit
from ._tier_network import network_hit, stopped_units

_SIGNAL = js_re(r"^-[A-Za-z0-9+]+$")
_VALUED = js_re(r"^(-[uUgGPstF]|--(user|uid|euid|group|pgroup|parent|session|terminal|pidfile|signal|ns|nslist|older-than|younger-than))$")
_BY_USER = js_re(r"^(-[uU]|--user|--uid|--euid)(=.*)?$")
_BY_USER_JOINED = js_re(r"^-[uU].+")
_EVERY = js_re(r"^(\.\*?|\^|\.\+|\^\.\*)$")
_POWER = js_re(r"^(shutdown|reboot|halt|poweroff|kexec)$")
_RUNLEVEL = js_re(r"^[016sS]$")
_METHOD = js_re(r"^(-X|--method=)")
_SYSTEMCTL_POWER = {"poweroff", "reboot", "halt", "kexec", "emergency", "rescue", "soft-reboot"}
# Services whose stop cuts the machine off or takes its containers, logs, logins or security monitoring down (the firewall's are _tier_network.py's).
_CRITICAL_SERVICES = js_re(
    r"^(ssh|sshd|dbus|dbus-broker|docker|containerd|kubelet|systemd-journald|systemd-logind|systemd-udevd|cron|crond|getty@[^.]*|auditd|apparmor|fail2ban|rsyslog|syslog|syslog-ng|osqueryd|falco|falcon-sensor|wazuh-agent|clamav-daemon|sssd|polkit)(\.service|\.socket)?$"
)
_ACCOUNT_REMOVERS = {"userdel", "deluser", "groupdel", "delgroup"}
_PASSWD_TAKES = js_re(r"^(-d|--delete|-l|--lock)$")
# Mount points the machine or the task rests on.
_SYSTEM_MOUNTS = js_re(r"^\/(?:$|(?:proc|sys|dev|usr|etc|boot|home|root|var|run|work|opt|bin|sbin|lib)(?:\/|$))")
_UMOUNT_ALL = js_re(r"^-[A-Za-z]*a[A-Za-z]*$")
_MOUNT_VALUED = js_re(r"^(-o|--options|-t|--types|-L|-U|--label|--uuid)$")
# Groups whose members are root, or can become it (`docker` too, but joining it is every install guide's step).
_ROOT_GROUPS = js_re(r"^(sudo|wheel|admin|root|shadow)$")
_GROUPS_OPTION = js_re(r"^-[a-zA-Z]*G$")
_GH_DELETES = {"repo", "release", "gist", "secret", "variable", "ssh-key", "gpg-key", "project"}
# Paths whose DELETE takes everything: every Elasticsearch index (`/_all`, `/*`, `/logs-*`), a GitHub repository, a GitLab project.
_DELETES_EVERYTHING = js_re(r"^\/(_all|[^/]*\*[^/]*)\/?$|^\/repos\/[^/]+\/[^/]+\/?$|^\/api\/v4\/projects\/[^/]+\/?$")
_HTTP_CLIENTS = js_re(r"^(curl|wget|http|https)$")
_REQUEST_OPTION = js_re(r"^(-X|--request|--method)$")
_REQUEST_JOINED = js_re(r"^(-X|--request=|--method=).")
_REQUEST_PREFIX = js_re(r"^(-X|--request=|--method=)")
_QUOTES = js_re(r"^['\"]|['\"]$")
_URL_PATH = js_re(r"^(?:https?:\/\/)?[\w.-]*(?::\d+)?(\/[^?#]*)")
_URL_LIKE = js_re(r"[/:.]")


def _disruption(detail: str) -> tuple:
    return ("destructive.system_disruption", detail)


def _teardown(detail: str) -> tuple:
    return ("destructive.infra_teardown", detail)


def _kill_targets(args: Sequence[str]) -> List[str]:
    """`kill`'s operands after its signal options: `-9`, `-KILL`, `-s KILL`, `-n 9`, `--signal KILL`, `--`."""
    targets: List[str] = []
    signal_seen = False
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            targets.extend(args[i + 1 :])
            break
        if a in ("-s", "-n", "--signal"):
            i += 2
            signal_seen = True
            continue
        if a in ("-l", "-L", "--list", "--table"):
            return []
        if _SIGNAL.search(a) and not signal_seen:
            signal_seen = True
            i += 1
            continue
        targets.append(a)
        i += 1
    # `kill -0 PID` only asks whether the process is there.
    return [t for t in targets if t == "-1"] if "-0" in args else targets


def _selection(args: Sequence[str]) -> Tuple[List[str], bool]:
    """pkill/killall's name patterns, and whether it selects by user (-u, -U, --user …)."""
    patterns: List[str] = []
    by_user = False
    i = 0
    while i < len(args):
        a = args[i]
        if _BY_USER.search(a) or _BY_USER_JOINED.search(a):
            by_user = True
        if _VALUED.search(a):
            i += 2
            continue
        if not a.startswith("-"):
            patterns.append(a)
        i += 1
    return patterns, by_user


def _gh_hit(args: Sequence[str]) -> Optional[tuple]:
    words = [a for a in args if not a.startswith("-")]
    if words[:1] == ["api"]:
        value = None
        for i, a in enumerate(args):
            if a in ("-X", "--method"):
                value = args[i + 1] if i + 1 < len(args) else None
                break
        if value is None:
            inline = next((a for a in args if _METHOD.search(a) and len(a) > 2), None)
            value = _METHOD.sub("", inline, count=1) if inline is not None else None
        return _teardown("gh api DELETE") if value is not None and value.upper() == "DELETE" else None
    if len(words) >= 2 and words[0] in _GH_DELETES and words[1] == "delete":
        return _teardown(f"gh {words[0]} delete")
    return None


def _http_delete_hit(program: str, args: Sequence[str]) -> Optional[tuple]:
    """An HTTP DELETE by curl, wget or HTTPie of a URL that takes a whole store or repository."""
    method: Optional[str] = None
    if program in ("http", "https"):
        method = next((a for a in args if not a.startswith("-")), None)
    else:
        for i, a in enumerate(args):
            if _REQUEST_OPTION.search(a):
                method = args[i + 1] if i + 1 < len(args) else None
            elif _REQUEST_JOINED.search(a):
                method = _REQUEST_PREFIX.sub("", a, count=1)
            if method is not None:
                break
    if method is None or method.upper() != "DELETE":
        return None
    for a in args:
        url = _URL_PATH.search(_QUOTES.sub("", a))
        if url and _URL_LIKE.search(a) and _DELETES_EVERYTHING.search(url.group(1)):
            return _teardown(f"HTTP DELETE of {url.group(1)}")
    return None


def disruption_hit(argv: Sequence[str]) -> Optional[tuple]:
    """A command that takes the machine, every process on it, or a remote repository down; None otherwise."""
    program = argv[0] if argv else ""
    args = list(argv[1:])
    # -1 is every process the caller may signal.
    killed = _kill_targets(args) if program == "kill" else []
    if "-1" in killed:
        return _disruption("kill of every process (-1)")
    if "1" in killed:
        return _disruption("kill of process 1, the init every other process hangs from")
    if program == "killall5":
        return _disruption("killall5: every process")
    if program in ("pkill", "killall"):
        patterns, by_user = _selection(args)
        if by_user and not patterns:
            return _disruption(f"{program} of every process of a user")
        if program == "pkill" and any(_EVERY.search(p) for p in patterns):
            return _disruption("pkill of every process")
    only_asks = any(a in ("--help", "--version") or (program == "shutdown" and a in ("-c", "--show")) for a in args)
    if _POWER.search(program) and not only_asks:
        return _disruption(program)
    if program == "npm" and next((a for a in args if not a.startswith("-")), None) == "unpublish":
        return _teardown("npm unpublish")
    # A published version pulled from its registry: crates.io's and RubyGems' yank, NuGet's delete.
    if (program == "cargo" and list(args[:1]) == ["yank"] and "--undo" not in args) or (program == "gem" and list(args[:1]) == ["yank"]):
        return _teardown(f"{program} yank")
    if (program == "nuget" and list(args[:1]) == ["delete"]) or (program == "dotnet" and list(args[:2]) == ["nuget", "delete"]):
        return _teardown("nuget delete")
    if program in ("init", "telinit") and _RUNLEVEL.search(args[0] if args else ""):
        return _disruption(f"{program} {args[0]}")
    if program == "systemctl" and "isolate" in args:
        return _disruption("systemctl isolate: every service of another target")
    if program == "systemctl":
        power = next((a for a in args if a in _SYSTEMCTL_POWER), None)
        if power is not None:
            return _disruption(f"systemctl {power}")
    stopped = stopped_units(argv)
    unit = next((u for u in stopped[1] if _CRITICAL_SERVICES.search(u)), None) if stopped is not None else None
    if unit is not None:
        return _disruption(f"systemctl {stopped[0]} {unit}" if program == "systemctl" else f"service {unit} stop")
    if program == "gh":
        return _gh_hit(args)
    if _HTTP_CLIENTS.search(program):
        return _http_delete_hit(program, args)
    return _account_hit(program, args) or _mount_hit(program, args) or network_hit(argv) or macos_hit(argv)


def _joined_groups(program: str, args: Sequence[str]) -> List[str]:
    """The groups `usermod -G/-aG GROUPS`, `gpasswd -a USER GROUP`, `adduser USER GROUP` put an account in."""
    operands = [a for a in args if not a.startswith("-")]
    if program == "usermod":
        at = next((i for i, a in enumerate(args) if _GROUPS_OPTION.search(a) or a in ("--groups", "--append-groups")), -1)
        return [] if at == -1 else (args[at + 1] if at + 1 < len(args) else "").split(",")
    if program == "gpasswd" and any(a in ("-a", "--add", "-M", "--members") for a in args):
        return operands[-1:]
    if program in ("adduser", "addgroup") and len(operands) == 2:
        return operands[1:]
    return []


def _account_hit(program: str, args: Sequence[str]) -> Optional[tuple]:
    """Deleting a user or group, deleting or locking a password, making an account root: the machine's logins, not a file."""
    named = any(not a.startswith("-") for a in args)
    if program in _ACCOUNT_REMOVERS and named:
        return _disruption(f"{program}: deleting an account")
    if program == "passwd" and any(_PASSWD_TAKES.search(a) for a in args):
        return _disruption("passwd: deleting or locking a password")
    if program == "usermod" and any(a in ("-L", "--lock") for a in args):
        return _disruption("usermod --lock")
    group = next((g for g in _joined_groups(program, args) if _ROOT_GROUPS.search(g) or "\u0000" in g), None)
    if group is not None:
        return ("destructive.protected_file", f"{program}: an account put in the {group.replace(chr(0), '…')} group")
    return None


def _mount_hit(program: str, args: Sequence[str]) -> Optional[tuple]:
    """Remounting read-only, or unmounting what the machine or the task rests on (`umount -a`, `umount -l /work`)."""
    if program == "mount":
        options: List[str] = []
        for i, a in enumerate(args):
            if a in ("-o", "--options"):
                options.append(args[i + 1] if i + 1 < len(args) else "")
            elif a.startswith("-o") and len(a) > 2:
                options.append(a[2:])
        flags = [f for o in options for f in o.split(",")]
        if "remount" in flags and "ro" in flags:
            return _disruption("mount: remounting read-only")
        # `mount --bind /dev/null /etc/passwd`, `mount -t tmpfs none /home`: what was there is hidden.
        operands = [a for i, a in enumerate(args) if not a.startswith("-") and not _MOUNT_VALUED.search(args[i - 1] if i > 0 else "")]
        point = operands[-1] if len(operands) >= 2 else None
        if point is not None and _SYSTEM_MOUNTS.search(point):
            return _disruption(f"mount over {point}")
    if program == "umount":
        if any(a in ("-a", "--all") or _UMOUNT_ALL.search(a) for a in args):
            return _disruption("umount of every mount")
        target = next((a for a in args if not a.startswith("-") and _SYSTEM_MOUNTS.search(a)), None)
        if target is not None:
            return _disruption(f"umount {target}")
    return None
