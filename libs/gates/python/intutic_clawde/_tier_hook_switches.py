"""Switches that make a harness start without the gate (a port of libs/governance/src/tier/hook-switches.ts).

Claude Code's bare mode (`CLAUDE_CODE_SIMPLE=1`, `--bare`) and Gemini CLI's restricted mode or an
untrusted workspace (`GEMINI_RESTRICTED_MODE`, `GEMINI_CLI_TRUST_WORKSPACE` not on), which skip hooks, and the variables and
flags that move where a harness reads its settings (CLAUDE_CONFIG_DIR, CODEX_HOME, Gemini CLI's
system settings path, `--setting-sources`), and `intutic disconnect`, which takes the gate out of them.
"""
from __future__ import annotations

from typing import Optional, Sequence

from ._jsre import js_re

_OFF_SWITCHES = ["CLAUDE_CODE_SIMPLE", "GEMINI_RESTRICTED_MODE"]
_ON_REQUIRED = ["GEMINI_CLI_TRUST_WORKSPACE"]
_MOVERS = ["CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_SYSTEM_SETTINGS_PATH", "GEMINI_CLI_SYSTEM_DEFAULTS_PATH", "GEMINI_CLI_HOME"]
_NAMES = "|".join(_OFF_SWITCHES + _ON_REQUIRED + _MOVERS)
_FALSY = js_re(r"""^\s*["']?(|0|false|no|off)["']?\s*$""", "i")
_TRUTHY = js_re(r"""^\s*["']?(1|true|yes|on)["']?\s*$""", "i")
_IN_TEXT = js_re(r"""(?:^|[^A-Za-z0-9_])(""" + _NAMES + r""")=([^\s;&|'"]*)""", "g")
_IN_CODE = js_re(r"""\b(""" + _NAMES + r""")\b['"\]}]*\s*(?:=>|[=:,])\s*['"]?([^'"\s,)}\]]*)""", "g")
_READERS = js_re(r"^(grep|egrep|fgrep|rg|ag|ack|git|cat|less|more|head|tail|man|printenv|unset|find|fd|jq|diff|wc)$")
_HARNESSES = js_re(r"^(claude|claude-code)$")
_ASSIGNMENT = js_re(r"^[A-Za-z_][A-Za-z0-9_]*=")
_NAME_ONLY = js_re(r"^(" + _NAMES + r")$")
_DECLARERS = js_re(r"^(export|declare|typeset|local|readonly)$")
_DIR = js_re(r"^.*\/")

_INTUTIC = js_re(r"^intutic(\.mjs)?$")

def _hit(detail: str) -> tuple:
    return ("destructive.hooks_disabled", detail)


def _switched_on(name: str, value: str) -> bool:
    if name in _ON_REQUIRED:
        return not _TRUTHY.search(value)
    return value != "" if name in _MOVERS else not _FALSY.search(value)


def hook_switch_hit(argv: Sequence[str]) -> Optional[tuple]:
    """A simple command (expanded, wrappers still on) that sets a hook switch, or starts a harness without its hooks."""
    program = _DIR.sub("", next((a for a in argv if not _ASSIGNMENT.search(a)), ""), count=1)
    if not _READERS.search(program):
        for word in argv:
            for m in _IN_TEXT.finditer(word):
                if _switched_on(m.group(1), m.group(2)):
                    return _hit(f"setting {m.group(1)}, which turns the gate off")
    if _DECLARERS.search(program) and any(_NAME_ONLY.search(a) for a in argv):
        return _hit("exporting a switch that turns the gate off")
    if program == "setenv":
        at = list(argv).index(program)
        name = argv[at + 1] if at + 1 < len(argv) else ""
        if _NAME_ONLY.search(name):
            return _hit(f"setenv {name}")
    # The harness may sit behind wrappers (`sudo claude --bare`): any word naming it.
    harness = next((b for b in (_DIR.sub("", a, count=1) for a in argv) if _HARNESSES.search(b)), None)
    if harness is not None and any(a == "--bare" or a.startswith("--setting-sources") for a in argv):
        return _hit(f"{harness} started without its hooks (--bare, --setting-sources)")
    # `intutic disconnect` takes the gates out of the project's hook settings.
    intutic = next((i for i, a in enumerate(argv) if _INTUTIC.search(_DIR.sub("", a, count=1))), -1)
    if intutic != -1 and next((a for a in argv[intutic + 1 :] if not a.startswith("-")), None) == "disconnect":
        return _hit("intutic disconnect: the gates taken out of the hook settings")
    return None


def hook_switch_in_code(code: str) -> Optional[tuple]:
    """Interpreter code that sets a hook switch in its environment or a file."""
    for m in _IN_CODE.finditer(code):
        if _switched_on(m.group(1), m.group(2)):
            return _hit(f"code setting {m.group(1)}, which turns the gate off")
    return None
