"""macOS taken down or laid open rather than a file (a port of libs/governance/src/tier/macos.ts).

An APFS container deleted, Time Machine's backups deleted or switched off, System Integrity
Protection or Gatekeeper switched off, a system daemon unloaded, an account deleted (`dscl . -delete
/Users/x`, `sysadminctl -deleteUser`), the firmware's variables cleared, the machine shut down through
System Events. (A protected place made immutable, `chflags -R uchg ~`, is _tier_files.py's.)
"""
from __future__ import annotations

from typing import Optional, Sequence

from ._jsre import js_re

_APFS = js_re(r"^apfs$", "i")
_APFS_DELETE = js_re(r"^(delete|erase)", "i")
_TMUTIL = js_re(r"^(delete|deletelocalsnapshots|disable|removedestination)$", "i")
_CSRUTIL = js_re(r"^(disable|clear)$")
_SPCTL = js_re(r"^--(master|global)-disable$")
_LAUNCHCTL = js_re(r"^(unload|bootout|disable|remove)$")
_SYSTEM_DAEMON = js_re(r"^(system\/?$|gui\/\d+\/?$|user\/\d+\/?$|system\/|\/System\/Library\/|\/Library\/LaunchDaemons\/|com\.apple\.)")
_DSCL_DELETE = js_re(r"^-(delete|remove)$")
_ACCOUNT_PATH = js_re(r"^\/(Users|Groups)\/[^/]+$")
_SYSTEM_EVENTS = js_re(r"system events", "i")
_SHUT_DOWN = js_re(r"\b(shut down|restart|log out)\b", "i")


def _disruption(detail: str) -> tuple:
    return ("destructive.system_disruption", detail)


def macos_hit(argv: Sequence[str]) -> Optional[tuple]:
    """A macOS command that takes the machine down or switches a protection off; None otherwise."""
    program = argv[0] if argv else ""
    args = list(argv[1:])
    words = [a for a in args if not a.startswith("-")]
    sub = words[0] if words else ""
    second = words[1] if len(words) > 1 else ""
    if program == "diskutil" and _APFS.search(sub) and _APFS_DELETE.search(second):
        return ("destructive.disk_tool", f"diskutil apfs {second}")
    if program == "tmutil" and _TMUTIL.search(sub):
        return _disruption(f"tmutil {sub}: Time Machine's backups")
    if program == "csrutil" and _CSRUTIL.search(sub):
        return _disruption(f"csrutil {sub}: System Integrity Protection off")
    if program == "spctl" and any(_SPCTL.search(a) for a in args):
        return _disruption("spctl: Gatekeeper off")
    if program == "launchctl" and _LAUNCHCTL.search(sub) and any(_SYSTEM_DAEMON.search(w) for w in words[1:]):
        return _disruption(f"launchctl {sub} of a system daemon or a whole session")
    # A whole domain of the user's or the system's preferences (no key: every setting in it).
    if program == "defaults" and sub == "delete" and len(words) == 2:
        return ("destructive.protected_file", f"defaults delete {words[1]}: every setting of the domain")
    if program == "dscl" and any(_DSCL_DELETE.search(a) for a in args) and any(_ACCOUNT_PATH.search(a) for a in args):
        return _disruption("dscl: deleting an account")
    if program == "sysadminctl" and "-deleteUser" in args:
        return _disruption("sysadminctl -deleteUser")
    if program == "nvram" and any(a in ("-c", "-d") for a in args):
        return _disruption("nvram: firmware variables cleared")
    if program == "osascript" and any(_SYSTEM_EVENTS.search(a) and _SHUT_DOWN.search(a) for a in args):
        return _disruption("osascript: the machine shut down")
    return None
