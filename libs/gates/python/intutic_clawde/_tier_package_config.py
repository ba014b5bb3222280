"""A package manager's settings whose value is a program it runs later (a port of libs/governance/src/tier/package-config.ts).

As git's `core.pager` is (_tier_systems): `npm config set script-shell X` makes every `npm run`
start X, so the value is judged now as the command it will be (a script file there is read as `bash
f` reads it). npm's, pnpm's and yarn's `config set` and `set`, in any location (`-g`,
`--location=user`), the same keys given as an option (`npm run build --script-shell=X`) or an
environment prefix (`npm_config_script_shell=X npm test`). Settings that run nothing themselves
(`ignore-scripts`) are not judged. A script written into package.json from the command line (`npm pkg
set scripts.postinstall="…"`, `npm set-script prepare "…"`) is a command npm runs later too: judged now.
"""
from __future__ import annotations

from typing import List, Sequence

from ._jsre import js_re, js_trim
from ._normalize import program_name

_MANAGERS = js_re(r"^(npm|pnpm|yarn)$")
#: Keys whose value the manager runs: the shell of every script, npm exec's and explore's shell, the editor, the browser, git, node-gyp.
_COMMAND_KEYS = js_re(r"^(script-shell|shell|editor|browser|git|node-gyp)$")
_ENV = js_re(r"^npm_config_([a-z_]+)=(.*)$", "is")
_OPTION = js_re(r"^--([a-z-]+)(?:=(.*))?$", "s")
_LOCATION = js_re(r"^(--location|-L|--userconfig|--globalconfig)$")
_SCRIPT_SETTING = js_re(r"^scripts\.[^=]+=(.*)$", "s")
_CONFIG = js_re(r"^(config|c)$")


def _settings(program: str, args: Sequence[str], line: Sequence[str]) -> List[str]:
    """The value of each command-running key set on this command line."""
    out: List[str] = []
    for w in line:
        env = _ENV.search(w)
        if env and _COMMAND_KEYS.search(env.group(1).lower().replace("_", "-")):
            out.append(env.group(2))
    if not _MANAGERS.search(program):
        return out
    for i, a in enumerate(args):
        option = _OPTION.search(a)
        if option and option.group(2) is not None and _COMMAND_KEYS.search(option.group(1)):
            out.append(option.group(2))
        elif a == "--script-shell" and i + 1 < len(args):
            out.append(args[i + 1])
    words = [a for i, a in enumerate(args) if not a.startswith("-") and not _LOCATION.search(args[i - 1] if i > 0 else "")]
    if words[:2] == ["pkg", "set"]:
        out.extend(m.group(1) for m in (_SCRIPT_SETTING.search(w) for w in words[2:]) if m)
    if words[:1] == ["set-script"] and len(words) > 2:
        out.append(words[2])
    at = 1 if words[:1] == ["set"] else 2 if words and _CONFIG.search(words[0]) and words[1:2] == ["set"] else -1
    if at == -1 or at >= len(words):
        return out
    pair = words[at]
    eq = pair.find("=")
    key, value = (pair[:eq], pair[eq + 1 :]) if eq > 0 else (pair, words[at + 1] if at + 1 < len(words) else None)
    if _COMMAND_KEYS.search(key) and value is not None:
        out.append(value)
    return out


def package_config_commands(words: Sequence[str]) -> List[str]:
    """The commands a package manager's settings on this line make it run later, to be judged as command lines."""
    # The words as written, wrappers included: _normalize reads `pnpm config …` as the script `config`.
    at = next((i for i, w in enumerate(words) if _MANAGERS.search(program_name(w))), -1)
    program = program_name(words[at]) if at != -1 else ""
    return [v for v in _settings(program, words[at + 1 :], words) if js_trim(v) != ""]
