"""Where coding-agent harnesses read their settings (a port of libs/governance/src/tier/harness-config.ts).

A write there can switch the gate off for the next agent started, so every such write is a
protected one, appends included. Also: every dotfile and dot-directory directly in home is itself a
protected target of a recursive delete, caches included.
"""
from __future__ import annotations

from typing import Any, Optional, Sequence

from ._jsre import js_re

_HOME_HARNESS = js_re(
    r"^(\.claude[^/]*|\.codex|\.gemini|\.cursor|\.qwen|\.copilot|\.opencode|\.aider[^/]*|\.crush|\.amp|\.config\/(claude[^/]*|codex|gemini[^/]*|cursor|qwen[^/]*|opencode|crush|amp|github-copilot))(\/|$)"
)
_SYSTEM_HARNESS = js_re(r"^\/(etc|Library\/Application Support)\/(claude-code|ClaudeCode|codex|gemini-cli)(\/|$)")
_PROJECT_HARNESS = js_re(
    r"\/(\.claude|\.codex|\.gemini|\.cursor|\.qwen)$|\/\.intutic(\/|$)|\/\.claude\/settings[^/]*\.json$|\/\.codex\/[^/]*\.(toml|json)$|\/\.mcp\.json$|\/\.(gemini|qwen)\/[^/]*\.json$|\/\.cursor\/(hooks|cli)[^/]*\.json$"
)
_TRAILING = js_re(r"\/+$")
_DOT_ENTRY = js_re(r"^\.[^/]+$")
_TEE_APPEND = js_re(r"^-[a-zA-Z]*a|^--append$")


def is_harness_config_abs(path: str, home: str) -> bool:
    """Whether an absolute path (from absolute_path) is a harness's settings, or the directory holding them."""
    if _SYSTEM_HARNESS.search(path) or _PROJECT_HARNESS.search(_TRAILING.sub("", path, count=1)):
        return True
    return path.startswith(home + "/") and _HOME_HARNESS.search(path[len(home) + 1 :]) is not None


def is_home_dot_entry(dir: str, word: str, scope: Any) -> bool:
    """`~/.ssh`, `~/.profile`, `~/.cache`: an entry directly in home whose name starts with a dot."""
    from ._paths import absolute_path, home_of

    path = _TRAILING.sub("", absolute_path(dir, word, scope.ctx), count=1)
    home = home_of(scope.ctx)
    rest = path[len(home) + 1 :]
    return path.startswith(home + "/") and _DOT_ENTRY.search(rest) is not None and rest not in (".", "..")


def harness_append_hit(argv: Sequence[str], redirects: Sequence[Any], scope: Any) -> Optional[tuple]:
    """An append (`>>`, `tee -a`) to a harness's settings: the writes _tier_files leaves to everyday work."""
    from ._paths import absolute_path, home_of

    program = argv[0] if argv else ""
    args = list(argv[1:])
    appended = [r.target for r in redirects if r.op == ">>"]
    if program == "tee" and any(_TEE_APPEND.search(a) for a in args):
        appended.extend(a for a in args if not a.startswith("-"))
    home = home_of(scope.ctx)
    for t in appended:
        if is_harness_config_abs(absolute_path(scope.dir, t, scope.ctx), home):
            return ("destructive.protected_file", f"appending to the agent settings {t}")
    return None
