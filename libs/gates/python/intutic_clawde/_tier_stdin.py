"""What a command does with its standard input (a port of libs/governance/src/tier/stdin.ts).

A shell or an interpreter runs the script it reads (a download, a file, another command's output),
and xargs runs its command with the words it reads, so `find ROOT ... | xargs rm` is judged as
`find ROOT ... -delete`.
"""
from __future__ import annotations

import dataclasses
from typing import Sequence

from ._expand import Scope, expand_argv
from ._jsre import js_re
from ._normalize import EffectiveCommand, program_name
from ._paths import UNKNOWN
from ._shell import SimpleCommand
from ._tier_files import find_delete_hit
from ._tier_script_files import stream_scripts
from ._tier_streams import stdin_of
from ._tier_walker import Walker

#: The programs that remove what they are given (find's -exec, or xargs fed by find).
REMOVES = js_re(r"^(rm|srm|shred|unlink|rmdir|trash|trash-put|rimraf)$")
_WIPE_SOURCE = js_re(r"^\/dev\/(null|zero|u?random)$")


def destroys_operands(argv: Sequence[str]) -> bool:
    """A command that removes, empties or overwrites the files it is given: the removers, `truncate`, `dd of=…`, `cp /dev/null …`."""
    name = program_name(argv[0] if argv else "")
    args = argv[1:]
    if REMOVES.search(name) or name == "truncate":
        return True
    if name == "dd":
        return any(a.startswith("of=") for a in args)
    return name in ("cp", "install") and any(_WIPE_SOURCE.search(a) for a in args)
_WHOLE_BREAKS = js_re(r"[\n\u0000]")
_WORD_BREAKS = js_re(r"\s+")


def _js_split_join(s: str, sep: str, joiner: str) -> str:
    return joiner.join(list(s) if sep == "" else s.split(sep))


def stdin_analysis(eff: EffectiveCommand, cmd: SimpleCommand, stages: Sequence[SimpleCommand], k: int, scope: Scope, walker: Walker, forms: Sequence[str]) -> None:
    stream = stdin_of(stages, k, scope)
    # What a command does with its stdin is its own segment's: the pipeline's text is not matched.
    pipe_forms = [forms[0] if forms else ""]
    name = eff.argv[0] if eff.argv else "undefined"
    if eff.stdin == "xargs":
        # `find ROOT ... | xargs rm`: what find lists, xargs removes; judged as `find ROOT ... -delete`.
        producer = expand_argv(stages[k - 1].argv, scope, stages[k - 1].split)[0] if k > 0 else None
        removes = destroys_operands(eff.argv)
        if producer and producer[0] == "find" and removes:
            walker.push(find_delete_hit(producer[1:], True, scope), pipe_forms)
        # `git ls-files | xargs rm`: every file git tracks, unless a pathspec or an option (--others, --modified …) narrows the list.
        if removes and producer and producer[:2] == ["git", "ls-files"] and all(a in ("-z", "-c", "--cached", "--full-name") for a in producer[2:]):
            walker.push(("destructive.rm_recursive", "removing every file git tracks in the workspace"), pipe_forms)
        if stream["kind"] != "text":
            words = [UNKNOWN]
        elif eff.whole:
            words = [x for t in stream["texts"] for x in _WHOLE_BREAKS.split(t) if x.strip() != ""]
        else:
            words = [x for t in stream["texts"] for x in _WORD_BREAKS.split(t) if x]
        # With a replacement string the command runs once per line: each line it may read is judged.
        if eff.replace is not None:
            runs = [[_js_split_join(a, eff.replace, word) for a in eff.argv] for word in (words[:4] if words else [""])]
        else:
            runs = [[*eff.argv, *words[:16]]]
        for argv in runs:
            walker.command(dataclasses.replace(cmd, redirects=[]), argv, scope, pipe_forms)
        return
    if stream["kind"] == "remote":
        walker.push(("destructive.remote_script", f"a download piped into {name}"), pipe_forms)
        return
    if stream["kind"] == "unknown":
        walker.push(("destructive.unresolved_script", f"{name} runs a script it reads from a command whose output cannot be read"), pipe_forms)
        return
    # A file on stdin (`sh < f`, `cat f | node`) is read as the gate found it, as `bash f` is.
    texts, hits = stream_scripts(stream, scope)
    for h in hits:
        walker.push(h, pipe_forms)
    for t in texts:
        if eff.stdin == "shell":
            walker.shell(t, scope, pipe_forms)
        else:
            walker.code(t, scope, pipe_forms, eff.argv[0] if eff.argv else "")
