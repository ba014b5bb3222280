"""Windows taken down rather than a folder (a port of libs/governance/src/tier/windows-system.ts).

Shadow copies and the boot configuration deleted, a registry hive deleted, the machine stopped or
restarted, every process killed, an account deleted or disabled, every package removed, the network
adapters or the firewall switched off, the machine PATH emptied; and files written over by
PowerShell or .NET: the PowerShell profile (a start-up script), a system file, a dotfile of the
profile (`Set-Content $PROFILE`, `Clear-Content …\\drivers\\etc\\hosts`,
`[IO.File]::WriteAllText("$HOME\\.bashrc", '')`). A hit is a (rule, detail) tuple.
"""
from __future__ import annotations

from typing import Callable, List, Optional, Tuple

from ._jsre import js_re

# A registry path at (or just under) a hive's root: `HKLM\SOFTWARE`, `HKLM:\SOFTWARE\Microsoft`, `HKCU\Environment`.
_HIVE = js_re(r"^(hklm|hkcu|hkcr|hku|hkcc|hkey_[a-z_]+):?\\?([^\\]+(\\[^\\]+)?)?\\?$", "i")
# Files whose overwrite breaks the machine or runs code at start-up.
_PROTECTED = js_re(
    r"^(\$profile(\.\w+)?|([a-z]:)?\\windows\\.*|\$env:(systemroot|windir)\\.*|%(systemroot|windir)%\\.*|(~|\$home|\$env:userprofile|%userprofile%)[\\/]\.[^\\/]+.*)$",
    "i",
)
_PATH_VALUE = js_re(r"^-path$", "i")
_BCD_DELETE = js_re(r"^\/(delete|deletevalue)$")
_DISABLE_OPTION = js_re(r"^-disable\w+$")
_DRIVE = js_re(r"^[a-z]:\\?$")
_STOPS = js_re(r"^(stop-computer|restart-computer)$")
_LISTS_PROCESSES = js_re(r"^(get-process|gps|ps)$", "i")
_USER_REMOVERS = js_re(r"^(remove-localuser|disable-localuser)$")
_REMOVERS = js_re(r"^(remove-item|ri|rm|del)$")
_WRITERS = js_re(r"^(set-content|sc|clear-content|clc|out-file|new-item|ni|add-content|ac)$")
_FALSE = js_re(r"^(false|\$false|0)$")
_EXE = js_re(r"\.exe$")

SystemHit = Tuple[str, str]


def _disruption(detail: str) -> SystemHit:
    return ("destructive.system_disruption", detail)


def _value_of(words: List[str], *names: str) -> Optional[str]:
    at = next((i for i, w in enumerate(words) if w.lower() in names), -1)
    return None if at == -1 else (words[at + 1] if at + 1 < len(words) else None)


def windows_system_hit(words: List[str], before: Optional[List[str]]) -> Optional[SystemHit]:
    """A statement stage (`words`, the stage before it) that takes the machine down or writes over a protected file."""
    program = _EXE.sub("", words[0].lower(), count=1)
    args = [w.lower() for w in words[1:]]
    first = args[0] if args else ""
    second = args[1] if len(args) > 1 else ""
    if program == "vssadmin" and first == "delete" and second == "shadows":
        return _disruption("vssadmin delete shadows: every restore point")
    if program == "wmic" and "shadowcopy" in args and "delete" in args:
        return _disruption("wmic shadowcopy delete")
    if program == "bcdedit" and any(_BCD_DELETE.search(a) for a in args):
        return _disruption("bcdedit deleting the boot configuration")
    if program == "reg" and first == "delete" and _HIVE.search(second):
        return _disruption(f"reg delete {words[2]}")
    if _REMOVERS.search(program) and any(_HIVE.search(_PATH_VALUE.sub("", w, count=1)) for w in words[1:]) and any(a.startswith("-r") for a in args):
        return _disruption("Remove-Item of a registry hive")
    if _STOPS.search(program):
        return _disruption(words[0])
    if program == "wbadmin" and args[:1] == ["delete"]:
        return _disruption(f"wbadmin delete {args[1] if len(args) > 1 else ''}: the machine's backups".replace("  ", " "))
    if program == "set-mppreference" and any(_DISABLE_OPTION.search(a) for a in args) and "$false" not in args:
        return _disruption("Set-MpPreference: Defender protection off")
    if program == "sdelete" and any(_DRIVE.search(a) or a in ("-c", "-z") for a in args):
        return _disruption("sdelete of a whole drive")
    if program == "taskkill" and "/im" in args and _value_of(args, "/im") == "*":
        return _disruption("taskkill of every process")
    if program == "stop-process" and (
        _value_of(args, "-name", "-processname") == "*" or (before is not None and _LISTS_PROCESSES.search(before[0]) and len(before) == 1)
    ):
        return _disruption("Stop-Process of every process")
    if program == "net" and first == "user" and "/delete" in args:
        return _disruption(f"net user {words[2]} /delete")
    if _USER_REMOVERS.search(program):
        return _disruption(f"{words[0]}: an account")
    if program == "remove-appxpackage" and "-allusers" in args:
        return _disruption("Remove-AppxPackage -AllUsers")
    if (program == "winget" and first == "uninstall" and "--all" in args) or (program == "choco" and first == "uninstall" and second == "all"):
        return _disruption(f"{words[0]} uninstall of every package")
    if program == "uninstall-package" and (
        _value_of(args, "-name") == "*" or (before is not None and before[0].lower() == "get-package" and len(before) == 1)
    ):
        return _disruption("Uninstall-Package of every package")
    if program == "disable-netadapter":
        return _disruption("Disable-NetAdapter")
    if program == "netsh" and ((first == "advfirewall" and (second == "reset" or "off" in args)) or (first == "interface" and "disable" in args)):
        return _disruption(f"netsh {' '.join(args[:2])}")
    if program == "set-netfirewallprofile" and _FALSE.search(_value_of(args, "-enabled") or ""):
        return _disruption("Set-NetFirewallProfile -Enabled False")
    if _WRITERS.search(program):
        written = _value_of([w.lower() for w in words], "-path", "-filepath", "-literalpath")
        if written is None:
            written = next((w for w in words[1:] if not w.startswith("-")), None)
        writes = program not in ("new-item", "ni") or "-force" in args
        if written is not None and writes and _PROTECTED.search(written):
            return ("destructive.protected_file", f"{words[0]} {written}")
    return None


_DOTNET_DELETE = js_re(r"\[(?:system\.)?io\.directory\]::delete\(\s*['\"]([^'\"]+)['\"]\s*,\s*\$true", "i")
_DOTNET_WRITE = js_re(r"\[(?:system\.)?io\.file\]::(?:writealltext|writeallbytes|writealllines|appendalltext|delete)\(\s*['\"]([^'\"]+)['\"]", "i")
_MACHINE_PATH = js_re(r"\[(?:system\.)?environment\]::setenvironmentvariable\(\s*['\"]path['\"]\s*,\s*(''|\"\"|\$null)\s*,\s*['\"]?machine", "i")


def dotnet_hits(text: str, place: Callable[[str], Optional[str]]) -> List[SystemHit]:
    """.NET calls in a PowerShell text: a directory deleted recursively, a protected file written, the machine PATH emptied."""
    hits: List[SystemHit] = []
    deleted = _DOTNET_DELETE.search(text)
    if deleted and place(deleted.group(1)) is not None:
        hits.append(("destructive.rm_recursive", f"[IO.Directory]::Delete of {place(deleted.group(1))} ({deleted.group(1)})"))
    written = _DOTNET_WRITE.search(text)
    if written and _PROTECTED.search(written.group(1)):
        hits.append(("destructive.protected_file", f"[IO.File] writing {written.group(1)}"))
    if _MACHINE_PATH.search(text):
        hits.append(_disruption("the machine PATH emptied"))
    return hits
