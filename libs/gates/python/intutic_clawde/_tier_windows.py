"""PowerShell and cmd.exe, read from the command's own text (a port of libs/governance/src/tier/windows.ts).

A backslash is a path separator there, not an escape: Remove-Item / rd / del of a drive root, a
system folder, the user profile or the workspace's .git; format / Format-Volume / Clear-Disk;
`iwr … | iex` and other downloaded scripts; what takes the machine down (_tier_windows_system); and
scripts handed to `powershell -Command`, `-EncodedCommand` (UTF-16LE base64), `cmd /c`,
`Invoke-Expression "…"` and `Start-Process cmd -ArgumentList …`. A hit is a dict {rule, detail, segment}.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ._jsre import js_re, js_trim
from ._tier_streams import node_base64
from ._tier_windows_system import dotnet_hits, windows_system_hit


def _tokenize(text: str) -> List[Tuple[str, List[List[str]]]]:
    statements: List[Tuple[str, List[List[str]]]] = []
    stages: List[List[str]] = [[]]
    word: Optional[str] = None
    start = 0

    def end_word() -> None:
        nonlocal word
        if word is not None:
            stages[-1].append(word)
        word = None

    def end_statement(at: int) -> None:
        nonlocal stages, start
        end_word()
        kept = [s for s in stages if s]
        if kept:
            statements.append((js_trim(text[start:at]), kept))
        stages = [[]]
        start = at + 1

    i = 0
    while i < len(text):
        c = text[i]
        nxt = text[i + 1 : i + 2]
        if c in ("'", '"'):
            end = text.find(c, i + 1)
            stop = len(text) if end == -1 else end
            word = (word or "") + text[i + 1 : stop]
            i = stop
        elif c in (" ", "\t"):
            end_word()
        elif c in (";", "\n") or (c == "&" and nxt == "&") or (c == "|" and nxt == "|"):
            end_statement(i)
            if nxt == c and c in ("&", "|"):
                i += 1
        elif c == "|":
            end_word()
            stages.append([])
        else:
            word = (word or "") + c
        i += 1
    end_statement(len(text))
    return statements


_ROOTS = js_re(r"^([a-z]:)?[\\/]?(\*(\.\*)?)?$", "i")
_SYSTEM = js_re(r"^([a-z]:)?[\\/](windows|users|program files( \(x86\))?|programdata|windows[\\/]system32|boot|recovery|system volume information)[\\/]?(\*(\.\*)?)?$", "i")
_PROFILE = js_re(
    r"^([a-z]:[\\/]users[\\/][^\\/]+|~|\$home|\$env:(userprofile|homepath|home)|%(userprofile|homepath)%|\(?\[(system\.)?environment\]::getfolderpath\(userprofile\)\)?)[\\/]?(\*(\.\*)?)?$",
    "i",
)
_SYSTEM_VARS = js_re(r"^(\$env:(systemroot|windir|programfiles|programdata|systemdrive|allusersprofile)|%(systemroot|windir|programfiles|programdata|systemdrive|allusersprofile)%)[\\/]?(\*(\.\*)?)?$", "i")
_WORKSPACE = js_re(r"^(\.|\.\.|[.\\/]*\*|\.[\\/]\*|\.\.[\\/].*|\$pwd|\$\(get-location\)|%cd%)[\\/]?$", "i")
_DRIVE = js_re(r"^[a-z]:$", "i")
_ABOVE_NAMED = js_re(r"^\.\.[\\/][^*]")
_VARIABLE = js_re(r"^(\$[\w:]+|%\w+%)[\\/]?(\*(\.\*)?)?$")
_TEMP = js_re(r"^(\$env:(temp|tmp)|%(temp|tmp)%)", "i")
_LONG_PATH = js_re(r"^\\\\\?\\")
_GIT_DIR = js_re(r"^(\.[\\/])?\.git[\\/]?$", "i")
_ABOVE_VARIABLE = js_re(r"^(\$[\w:]+|%\w+%)[\\/].*\.\.([\\/]|$)")


def _windows_place(target: str) -> Optional[str]:
    t = _LONG_PATH.sub("", js_trim(target), count=1)
    if t == "":
        return None
    if _GIT_DIR.search(t):
        return "the workspace's git history"
    # The parent of a place the line cannot name could be any place.
    if _ABOVE_VARIABLE.search(t):
        return "a path that cannot be resolved"
    if _DRIVE.search(t) or _ROOTS.search(t):
        return "a drive root"
    if _SYSTEM.search(t) or _SYSTEM_VARS.search(t):
        return "a system folder"
    if _PROFILE.search(t):
        return "the user profile"
    if _WORKSPACE.search(t) and not _ABOVE_NAMED.search(t):
        return "the workspace or above it"
    if _VARIABLE.search(t) and not _TEMP.search(t):
        return "a path that cannot be resolved"
    return None


_REMOVERS = {"remove-item", "ri", "rm", "del", "erase", "rd", "rmdir", "rm.exe"}
_LISTERS = {"get-childitem", "gci", "ls", "dir"}
_DOWNLOAD = js_re(r"\b(iwr|irm|invoke-webrequest|invoke-restmethod|downloadstring|downloadfile|net\.webclient|start-bitstransfer|curl|wget)\b", "i")
_DISK = js_re(r"^(format|format-volume|clear-disk|initialize-disk|remove-partition|diskpart|cipher)$", "i")
_WINDOWS_PATH = js_re(r"^[a-z]:|\\|^\$env:|^%\w+%|^\$home$", "i")
_RECURSE = js_re(r"^-(r|re|rec|recu|recur|recurs|recurse)$")
_SLASH_S = js_re(r"^\/s$")
_PATH_OPT = js_re(r"^-(path|literalpath|lp|pspath)$")
_FILTER_OPT = js_re(r"^-(include|exclude|filter)$")
_SWITCH = js_re(r"^\/[a-z]$", "i")


def _remove_targets(words: List[str]) -> Tuple[List[str], bool]:
    targets: List[str] = []
    recursive = False
    i = 1
    while i < len(words):
        w = words[i]
        lower = w.lower()
        if _RECURSE.search(lower) or _SLASH_S.search(lower):
            recursive = True
        elif _PATH_OPT.search(lower):
            i += 1
            targets.append(words[i] if i < len(words) else "")
        elif _FILTER_OPT.search(lower):
            i += 1
        elif not w.startswith("-") and not _SWITCH.search(w):
            targets.extend(w.split(","))
        i += 1
    return targets, recursive


def _decode_encoded(b64: str) -> str:
    data = node_base64(b64)
    return "".join(chr(data[i] | (data[i + 1] << 8)) for i in range(0, len(data) - 1, 2))


_EXE = js_re(r"\.exe$")
_DIRS = js_re(r"^.*[\\/]")
_CMD_C = js_re(r"^\/[ck]$", "i")
_ENCODED = js_re(r"^-(e|ec|en|enc|enco|encod|encode|encoded|encodedc\w*)$")
_COMMAND = js_re(r"^-(c|co|com|comm|comma|comman|command)$")
_ARGUMENT_LIST = js_re(r"^-(argumentlist|args)$", "i")
_WITH_VALUE = js_re(r"^-(executionpolicy|ep|windowstyle|w|file|f|version|v|configurationname|outputformat|of|inputformat|if)$")


def _nested_scripts(words: List[str]) -> List[str]:
    """Scripts this statement hands to powershell or cmd."""
    program = _DIRS.sub("", _EXE.sub("", words[0].lower(), count=1), count=1)
    if program == "cmd":
        at = next((i for i, w in enumerate(words) if _CMD_C.search(w)), -1)
        return [] if at == -1 else [" ".join(words[at + 1 :])]
    if program in ("iex", "invoke-expression"):
        return [" ".join(words[1:])] if len(words) > 1 else []
    if program in ("start-process", "start", "saps") and len(words) > 1:
        # `Start-Process cmd -ArgumentList '/c rd /s /q C:\'`: the program with its arguments.
        at = next((i for i, w in enumerate(words) if _ARGUMENT_LIST.search(w)), -1)
        return [" ".join([words[1], *([] if at == -1 else [words[at + 1] if at + 1 < len(words) else ""])])]
    if program not in ("powershell", "pwsh"):
        return []
    i = 1
    while i < len(words):
        w = words[i].lower()
        if _ENCODED.search(w):
            return [_decode_encoded(words[i + 1] if i + 1 < len(words) else "")]
        if _COMMAND.search(w):
            return [" ".join(words[i + 1 :])]
        if _WITH_VALUE.search(w):
            i += 1
        elif not w.startswith("-"):
            return [" ".join(words[i:])]
        i += 1
    return []


_MENTIONS = js_re(
    r"[\\:$%]|remove-item|\bri\b|\brd\b|\bdel\b|format|iex|invoke-|clear-disk|diskpart|powershell|pwsh|cmd|vssadmin|wmic|bcdedit|\breg\b|taskkill|-process|-computer|\bnet\b|localuser|appx|winget|choco|-package|netadapter|netsh|netfirewall|-content|out-file|new-item",
    "i",
)
_IEX = js_re(r"\b(iex|invoke-expression)\b", "i")
_CIPHER_WIPE = js_re(r"^\/w", "i")
_FORCE = js_re(r"^-(fo|force|recurse)$", "i")
_LIST_FILTER = js_re(r"^-(include|filter|exclude|name|file)$", "i")


def windows_hits(text: str, depth: int = 0) -> List[Dict[str, str]]:
    """Destructive PowerShell / cmd statements in a command text."""
    # A nested script is read whatever it says: it was handed to PowerShell or cmd.
    if depth > 4 or (depth == 0 and not _MENTIONS.search(text)):
        return []
    hits: List[Dict[str, str]] = []
    for st_text, st_stages in _tokenize(text):

        def hit(rule: str, detail: str, segment: str = st_text) -> None:
            hits.append({"rule": rule, "detail": detail, "segment": segment})

        if _IEX.search(st_text) and _DOWNLOAD.search(st_text):
            hit("destructive.remote_script", "a downloaded PowerShell script run with Invoke-Expression")
        for rule, detail in dotnet_hits(st_text, _windows_place):
            hit(rule, detail)
        for k, words in enumerate(st_stages):
            program = _EXE.sub("", words[0].lower(), count=1)
            for script in _nested_scripts(words):
                hits.extend(windows_hits(script, depth + 1))
            system = windows_system_hit(words, st_stages[k - 1] if k > 0 else None)
            if system:
                hit(*system)
            if _DISK.search(program) and (program != "cipher" or any(_CIPHER_WIPE.search(w) for w in words)):
                hit("destructive.disk_tool", f"{words[0]} on a disk")
            if program not in _REMOVERS:
                continue
            targets, recursive = _remove_targets(words)
            windows_style = True if program not in ("rm", "rmdir") else (any(_WINDOWS_PATH.search(t) for t in targets) or any(_FORCE.search(w) for w in words))
            if not windows_style:
                continue
            lister = st_stages[k - 1] if k > 0 else None
            lists_all = lister is not None and lister[0].lower() in _LISTERS and not any(_LIST_FILTER.search(w) for w in lister)
            piped = (_remove_targets(lister)[0] or ["."]) if lists_all and lister is not None else []
            for t in [*targets, *piped]:
                place = _windows_place(t)
                if place and (recursive or program in ("del", "erase") or piped):
                    hit("destructive.rm_recursive", f"{words[0]} of {place} ({t})")
    return hits
