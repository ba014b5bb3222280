"""A crontab installed from standard input (a port of libs/governance/src/tier/cron.ts).

`echo '* * * * * rm -rf ~' | crontab -`: each entry's command runs later, unattended, so it is judged
now as if run. An empty table installed over the user's (`echo -n | crontab -`, `crontab /dev/null`)
removes every entry, as `crontab -r` does.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from ._jsre import js_re

_LIST_REMOVE_EDIT = js_re(r"^-[a-zA-Z]*[lre]")
_ENTRY = js_re(r"^\s*(?:@\w+|(?:\S+\s+){4}\S+)\s+(.+)$")
_COMMENT = js_re(r"^\s*#")
_VARIABLE = js_re(r"^\s*[A-Za-z_][A-Za-z0-9_]*\s*=")
_PERCENT = js_re(r"%.*$")
_STDIN_FILES = ("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0")


def cron_reads_stdin(args: Sequence[str]) -> bool:
    """`crontab -` or `crontab` with no file reads the new table from standard input (not -l/-r/-e)."""
    if any(_LIST_REMOVE_EDIT.search(a) for a in args):
        return False
    files = [a for i, a in enumerate(args) if not a.startswith("-") and (i == 0 or args[i - 1] != "-u")]
    return not files or "-" in files or "-" in args or any(f in _STDIN_FILES for f in files)


def cron_commands(text: str) -> List[str]:
    """The commands of a crontab's entries: after five time fields or an @keyword; variables and comments skipped."""
    out: List[str] = []
    for line in text.split("\n"):
        entry = _ENTRY.search(line)
        if not entry or _COMMENT.search(line) or _VARIABLE.search(line):
            continue
        out.append(_PERCENT.sub("", entry.group(1), count=1))
    return out


def cron_wipes(args: Sequence[str], stdin: Optional[Dict[str, Any]]) -> bool:
    """Whether the table crontab installs is empty: blank text on its stdin, or /dev/null."""
    if any(_LIST_REMOVE_EDIT.search(a) for a in args):
        return False
    if "/dev/null" in args:
        return True
    if stdin is not None and stdin["kind"] == "text":
        return all(t.strip() == "" for t in stdin["texts"])
    return stdin is not None and stdin["kind"] == "local" and "/dev/null" in stdin["files"]
