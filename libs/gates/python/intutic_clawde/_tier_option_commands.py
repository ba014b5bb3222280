"""Options whose value a program runs as a shell command (a port of libs/governance/src/tier/option-commands.ts).

tar's `--checkpoint-action=exec=CMD`, `--to-command`, `--use-compress-program` (`-I`), `--info-script`
(`-F`) and `--new-volume-script`; zip's `-TT`/`--unzip-command`; rsync's `-e`/`--rsh` and
`--rsync-path`; ansible's `-a` when its module runs commands (`command`, the default, `shell`, `raw`).
Each value is judged now, as the command line it will be.
"""
from __future__ import annotations

from typing import Dict, List, Sequence

from ._jsre import js_re, js_trim

# The long options (`--name=V` or `--name V`) and short ones (`-X V`) of each program that carry a command.
_COMMAND_OPTIONS: Dict[str, Dict[str, List[str]]] = {
    "tar": {"long": ["to-command", "use-compress-program", "info-script", "new-volume-script"], "short": ["-I", "-F"]},
    "zip": {"long": ["unzip-command"], "short": ["-TT"]},
    "rsync": {"long": ["rsh", "rsync-path"], "short": ["-e"]},
}
_LONG = js_re(r"^--([a-z-]+)(?:=(.*))?$", "s")
_RUNS_COMMANDS = js_re(r"^(ansible\.builtin\.)?(command|shell|raw)$")
_CHECKPOINT_EXEC = js_re(r"^--checkpoint-action=(?:exec|e)=(.*)$", "s")


def option_commands(argv: Sequence[str]) -> List[str]:
    """The shell commands this command's options make it run."""
    program = argv[0] if argv else ""
    args = list(argv[1:])
    if program == "ansible":
        module = next((a for i, a in enumerate(args) if i > 0 and args[i - 1] in ("-m", "--module-name")), "command")
        command = next((a for i, a in enumerate(args) if i > 0 and args[i - 1] in ("-a", "--args")), None)
        return [command] if command is not None and _RUNS_COMMANDS.search(module) else []
    options = _COMMAND_OPTIONS.get(program)
    if options is None:
        return []
    out: List[str] = []
    for i, a in enumerate(args):
        nxt = args[i + 1] if i + 1 < len(args) else ""
        long = _LONG.search(a)
        if long and long.group(1) in options["long"]:
            out.append(long.group(2) if long.group(2) is not None else nxt)
        elif a in options["short"]:
            out.append(nxt)
        action = _CHECKPOINT_EXEC.search(a) if program == "tar" else None
        if action:
            out.append(action.group(1))
    return [c for c in out if js_trim(c) != ""]
