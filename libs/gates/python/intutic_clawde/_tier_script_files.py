"""A file a command runs, judged by what it holds at that moment (a port of libs/governance/src/tier/script-files.ts).

As the gate found it on disk (_disk): a shell script (`bash f`, `sh -x f`, `zsh f`, `source f`,
`. f`, `./f`, a script on PATH outside the system's program trees) is read as if its lines were
typed, and so is a file a shell or an interpreter reads as its script on standard input (`sh < f`,
`cat f | bash`, `node < f.js`); a file the gate could not read within bounds, or did not get to, is
the worst case: unresolved_script. Any file a command runs -- a binary, an interpreter's script -- that is a coding
agent by its installed package or its content hash is ungoverned_agent, whatever it is called.
Without a gate (the tier alone) nothing here applies: the words are all there is.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from ._disk import command_path, file_facts, path_forms
from ._expand import Scope
from ._jsre import js_re
from ._normalize import SHELLS, interpreter_of, program_name
from ._paths import UNKNOWN, absolute_path
from ._tier_agents import agent_file_hit, agent_package_of
from ._tier_streams import script_output

#: Builtins and keywords: never a file on PATH worth a look.
_BUILTINS = set(
    "echo printf cd pwd test [ [[ true false : export set unset read local return exit shift eval exec source . alias unalias type command builtin declare typeset readonly let wait trap ulimit umask pushd popd dirs hash times getopts break continue if then else elif fi for while until do done case esac function time".split(" ")
)
#: Trees of installed programs: a script found there on PATH is the system's, not the agent's.
_PROGRAM_TREES = js_re(r"^\/(usr|bin|sbin|lib|lib32|lib64|libx32|opt|etc)(\/|$)")
_STDIN_FILES = {"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"}
#: An empty script: `sh < /dev/null`.
_EMPTY = "/dev/null"
_LETTERS = js_re(r"^-[A-Za-z]+$")
_SHEBANG = js_re(r"^#!\s*(\S+)(?:[ \t]+([^\n]*))?")
_SPACES = js_re(r"\s+")


def _shell_script_arg(args: Sequence[str]) -> Optional[Dict[str, Any]]:
    """The script file a shell runs (`sh [options] FILE args...`), or None for -c, -s and standard input."""
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            i += 1
        elif a == "-" or (_LETTERS.search(a) and ("s" in a or "c" in a)):
            return None
        elif a == "--" or a.startswith("-") or a.startswith("+"):
            pass
        else:
            return {"file": a, "rest": list(args[i + 1 :])}
        i += 1
    return None


def _interpreter_script_arg(args: Sequence[str], code_options: Sequence[str]) -> Optional[str]:
    """The script an interpreter runs (`node f.js`, `python3 -u f.py`); None for inline code or a module."""
    for a in args:
        if a in code_options or a == "-m":
            return None
        if not a.startswith("-"):
            return a
    return None


def _shebang_program(text: str) -> str:
    """What runs the file: its shebang's program (`#!/usr/bin/env bash` -> bash); none: a shell (ENOEXEC)."""
    m = _SHEBANG.search(text)
    if not m:
        return "sh"
    program = program_name(m.group(1))
    if program != "env":
        return program
    words = [w for w in _SPACES.split(m.group(2) or "") if w != "" and not w.startswith("-") and "=" not in w]
    return program_name(words[0] if words else "")


def _file_run(argv: Sequence[str], eff_argv: Sequence[str], scope: Scope) -> Optional[Dict[str, Any]]:
    program = eff_argv[0] if eff_argv else ""
    args = list(eff_argv[1:])
    if program in SHELLS:
        s = _shell_script_arg(args)
        return None if s is None else {"word": s["file"], "rest": s["rest"], "via": "shell"}
    if program in ("source", "."):
        return None if not args else {"word": args[0], "rest": args[1:], "via": "shell"}
    code_options = interpreter_of(program)
    if code_options:
        f = _interpreter_script_arg(args, code_options)
        return None if f is None else {"word": f, "rest": [], "via": "interpreter"}
    written = next((w for w in argv if "/" in w and program_name(w) == program), None)
    if written is not None:
        return {"word": written, "rest": args, "via": "exec"}
    if program in _BUILTINS:
        return None
    found = command_path(program, scope.ctx)
    return {"word": found, "rest": args, "via": "path"} if found else None


def _hit_or_none(hit: Any) -> Optional[Dict[str, Any]]:
    return None if hit is None else {"kind": "hit", "hit": hit}


def script_file_run(argv: Sequence[str], eff_argv: Sequence[str], scope: Scope) -> Optional[Dict[str, Any]]:
    """What running the file a command names amounts to, as the gate found it: {"kind": "shell", "text", "args"}, {"kind": "hit", "hit"}, or None."""
    run = _file_run(argv, eff_argv, scope)
    if run is None or UNKNOWN in run["word"] or run["word"] in _STDIN_FILES or run["word"].startswith("<("):
        return None
    path = absolute_path(scope.dir, run["word"], scope.ctx)
    forms = path_forms(path, scope.ctx)
    # An agent's installed package in the path is known from the words (and real paths) alone.
    packaged = next((a for a in map(agent_package_of, forms) if a is not None), None)
    if packaged:
        return _hit_or_none(agent_file_hit(packaged, run["rest"]))
    # A program PATH finds among the installed ones is the system's: its name is what the tier knows.
    if run["via"] == "path" and any(_PROGRAM_TREES.search(p) for p in forms):
        return None
    facts = file_facts(path, scope.ctx)
    if facts is False:
        return None
    if facts is not None and facts.get("agent"):
        return _hit_or_none(agent_file_hit(facts["agent"], run["rest"]))
    kind = (facts or {}).get("kind")
    if run["via"] == "interpreter" or kind in ("missing", "binary"):
        return None
    if facts is None or kind == "unreadable":
        return {"kind": "hit", "hit": _uncheckable(run["word"], facts)}
    text = facts.get("text") or ""
    if run["via"] != "shell" and _shebang_program(text) not in SHELLS:
        return None
    return {"kind": "shell", "text": text, "args": run["rest"]}


def _uncheckable(word: str, facts: Any) -> tuple:
    why = (facts or {}).get("why") or "not read before the decision"
    return ("destructive.unresolved_script", f"a script whose content cannot be checked ({word.replace(UNKNOWN, '…')}: {why})")


def stream_scripts(stream: Dict[str, Any], scope: Scope) -> Tuple[List[str], List[tuple]]:
    """The script texts a stream holds (a local file's as the gate found it), and the hits of the files it could not read."""
    texts: List[str] = list(stream["texts"]) if stream["kind"] == "text" else []
    hits: List[tuple] = []
    for word in stream.get("files", []) if stream["kind"] == "local" else []:
        if UNKNOWN in word or word in _STDIN_FILES or word == _EMPTY:
            continue
        facts = file_facts(absolute_path(scope.dir, word, scope.ctx), scope.ctx)
        agent = agent_file_hit(facts["agent"], []) if facts and facts.get("agent") else None
        if agent:
            hits.append(agent)
        elif facts is None or (facts and facts.get("kind") == "unreadable"):
            hits.append(_uncheckable(word, facts))
        elif facts and facts.get("kind") == "text":
            texts.append(facts.get("text") or "")
    return texts, hits


def substituted_scripts(words: Sequence[str], program: str, scope: Scope) -> Tuple[List[tuple], List[str], List[str]]:
    """`bash <(curl …)`, `source <(echo …)`, `python3 <(…)`: what a process substitution given as the script file runs, for the caller to walk."""
    sourced = program in SHELLS or program in ("source", ".")
    word = next((a for a in words[1:] if a.startswith("<(")), None) if sourced or interpreter_of(program) else None
    if word is None:
        return [], [], []
    out = script_output(word[2:-1], scope)
    texts, hits = stream_scripts(out, scope)
    if out["kind"] == "remote":
        hits.insert(0, ("destructive.remote_script", f"{program} runs a downloaded script"))
    elif out["kind"] == "unknown":
        hits.insert(0, ("destructive.unresolved_script", f"{program} runs a script that cannot be read"))
    return hits, (texts if sourced else []), ([] if sourced else texts)
