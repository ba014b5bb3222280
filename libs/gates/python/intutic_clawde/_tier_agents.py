"""Another coding agent started from a tool call (a port of libs/governance/src/tier/agents.ts).

Its own tool calls run where no gate may see them: from a directory whose hook settings do not
register the gates, or with settings of its own (HOME=..., --settings, CODEX_HOME,
GEMINI_CLI_SYSTEM_SETTINGS_PATH). What it will do cannot be read from its prompt, so the tier blocks
it, as it blocks a script it cannot read. Asking one for its version or its help goes through.
"""
from __future__ import annotations

from typing import Optional, Sequence

from ._jsre import js_re
from ._normalize import interpreter_of, program_name
from ._tier_files import VerbHit

#: Coding agents' commands, and the names `npx <package>` runs them under.
AGENT_COMMANDS = {
    "claude", "claude-code", "codex", "gemini", "gemini-cli", "cursor-agent", "aider", "opencode", "opencode-ai",
    "amp", "qwen", "qwen-code", "copilot", "crush",
}  # fmt: skip
#: Their installed packages, in a script path an interpreter runs (`node .../node_modules/@google/gemini-cli/bundle/gemini.js`).
_AGENT_PACKAGES = js_re(
    r"(?:node_modules|site-packages|dist-packages)\/(@anthropic-ai\/claude-code|@google\/gemini-cli|@openai\/codex|opencode-ai|@qwen-code\/qwen-code|@github\/copilot|@sourcegraph\/amp|aider)(?:-(?:linux|darwin|win32)[\w-]*)?\/"
)
#: Flags only coding agents take: a program started with one is an agent under another name
#: (`~/helper -p ... --dangerously-skip-permissions`). `--settings` alone is Maven's too, so it counts
#: only beside `-p`/`--print`.
_AGENT_FLAGS = js_re(
    r"^--(mcp-config|strict-mcp-config|dangerously-skip-permissions|allowedTools|allowed-tools|disallowedTools|disallowed-tools|permission-mode|permission-prompt-tool|append-system-prompt|dangerously-bypass-approvals-and-sandbox|dangerously-bypass-hook-trust|skip-git-repo-check|full-auto|yolo|approval-mode|ask-for-approval|allowed-mcp-server-names)(=|$)"
)
#: Their modules, as `python -m <module>` runs them.
_AGENT_MODULES = {"aider"}
_ONLY_ASKS = {"--version", "-v", "-V", "--help", "-h"}


def _interpreted_agent(args: Sequence[str], code_options: Sequence[str]) -> Optional[str]:
    """The agent an interpreter runs as its script or module; None for code given inline (the code tier reads that)."""
    for i, a in enumerate(args):
        if a in code_options:
            return None
        if a == "-m":
            module = args[i + 1] if i + 1 < len(args) else ""
            return module if module in _AGENT_MODULES else None
        if not a.startswith("-"):
            m = _AGENT_PACKAGES.search(a)
            return m.group(1) if m else None
    return None


def _agent_of(program: str, args: Sequence[str]) -> Optional[str]:
    if program in AGENT_COMMANDS:
        return program
    flag = next((a for a in args if _AGENT_FLAGS.search(a) or (a.startswith("--settings") and any(x in ("-p", "--print") for x in args))), None)
    if flag is not None:
        return f"{program} (started with {flag.split('=')[0]})"
    code_options = interpreter_of(program)
    return _interpreted_agent(args, code_options) if code_options else None


def nested_agent_hit(argv: Sequence[str]) -> Optional[VerbHit]:
    """A normalized simple command that starts a coding agent, or None."""
    program = argv[0] if argv else ""
    args = list(argv[1:])
    agent = _agent_of(program, args)
    if agent is None:
        return None
    if program in AGENT_COMMANDS and args and all(a in _ONLY_ASKS for a in args):
        return None
    return _agent_run_hit(agent)


def _agent_run_hit(agent: str) -> VerbHit:
    return ("destructive.ungoverned_agent", f"starting the coding agent {agent}, whose own tool calls no gate would see")


def agent_package_of(path: str) -> Optional[str]:
    """The agent package a file belongs to, from its path (a link's real path included)."""
    m = _AGENT_PACKAGES.search(path)
    return m.group(1) if m else None


def agent_file_hit(agent: str, args: Sequence[str]) -> Optional[VerbHit]:
    """A file the gate found to be a coding agent (by its package or its content hash), run with `args`."""
    return None if args and all(a in _ONLY_ASKS for a in args) else _agent_run_hit(agent)


#: Commands that make a file available under another name.
_COPIERS = {"cp", "ln", "link", "install", "rsync", "mv"}


def agent_copy_hit(argv: Sequence[str]) -> Optional[VerbHit]:
    """A coding agent's program copied or linked under another name in the same command line.

    `cp "$(which claude)" /tmp/h && /tmp/h -p ...` (the lookup is expanded to the program's path like
    any other word): the gate looks at a program's content only once it is on disk, before this
    command has made it, so the copy itself is the ungoverned start.
    """
    program = argv[0] if argv else ""
    if program not in _COPIERS:
        return None
    operands = [w for w in argv[1:] if not w.startswith("-")]
    for word in operands[:-1] if len(operands) > 1 else operands:
        agent = program_name(word) if "/" in word and program_name(word) in AGENT_COMMANDS else agent_package_of(word)
        if agent is not None:
            return ("destructive.ungoverned_agent", f"{program} of the coding agent {agent} under another name")
    return None
