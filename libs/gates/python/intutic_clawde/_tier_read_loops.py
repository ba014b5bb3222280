"""A `while read NAME` loop runs its body once for every line of its input, so a body command that
names $NAME does to every line what xargs would: `git ls-files | while read f; do rm "$f"; done` is
judged as `git ls-files | xargs -I{} rm {}`, and `find ~ -type f | while read f; do rm "$f"; done`
as `find ~ -type f -delete`. The loop's input is the stage before it in its pipeline, or what the
`done` reads (`done < <(git ls-files)`, `done < list.txt`). A `for NAME in $(…)` loop does the same
with the words of the command it substitutes: `for d in $(find . -name x); do rm -rf "$d"; done`.
Mirrors tier/read-loops.ts."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import List, Optional, Sequence

from ._jsre import js_re
from ._normalize import ASSIGNMENT
from ._shell import Pipeline, SimpleCommand, parse_shell

_NAME = js_re(r"^[A-Za-z_]\w*$")
_VALUED_OPTION = js_re(r"^-[A-Za-z]*[dpntuN]$")


@dataclass
class ReadLoop:
    #: The pipelines of the loop's body, by index into the script's pipelines.
    body: List[int]
    #: The command whose output the loop reads (None: nothing the line shows).
    producer: Optional[SimpleCommand]
    vars: List[str]


def _command(argv: List[str]) -> SimpleCommand:
    return SimpleCommand(argv=argv, redirects=[], substitutions=[], raw=" ".join(argv))


def _read_names(args: Sequence[str]) -> List[str]:
    """The names `read` sets, from `read [-r] [-d D] [-p P] [-a] NAME…` (its options' values skipped)."""
    names: List[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if _VALUED_OPTION.search(a):
            i += 1
        elif not a.startswith("-"):
            names.append(a)
        i += 1
    return [n for n in names if _NAME.search(n)]


def _done_input(done: SimpleCommand) -> Optional[SimpleCommand]:
    """What a `done < X` redirect feeds the loop: a process substitution's last command, or a file read by cat."""
    source = next((r for r in done.redirects if r.op == "<"), None)
    if source is None:
        return None
    if source.target.startswith("<("):
        script = done.substitutions[0] if done.substitutions else parse_shell(source.target[2:-1])
        last = script.pipelines[-1] if script.pipelines else None
        return last.commands[-1] if last is not None and last.commands else None
    return _command(["cat", source.target])


def _done_after(pipelines: Sequence[Pipeline], at: int) -> int:
    """The loop body's end: the first `done` after pipeline `at`."""
    return next((j for j in range(at + 1, len(pipelines)) if pipelines[j].commands and pipelines[j].commands[0].argv[:1] == ["done"]), -1)


_SUBSTITUTED_LIST = js_re(r"^(\$\(.*\)|`.*`)$", "s")


def _for_loop_at(pipelines: Sequence[Pipeline], at: int) -> Optional[ReadLoop]:
    """`for NAME in $(PRODUCER)`: the loop over the words one command prints."""
    commands = pipelines[at].commands
    argv = commands[0].argv if commands else []
    if len(argv) != 4 or argv[0] != "for" or argv[2] != "in" or not _NAME.search(argv[1]) or not _SUBSTITUTED_LIST.search(argv[3]):
        return None
    subs = commands[0].substitutions
    last = subs[0].pipelines[-1] if subs and subs[0].pipelines else None
    producer = last.commands[-1] if last is not None and last.commands else None
    end = _done_after(pipelines, at)
    if producer is None or end < 0:
        return None
    return ReadLoop(body=list(range(at + 1, end)), producer=producer, vars=[argv[1]])


def read_loop_at(pipelines: Sequence[Pipeline], at: int) -> Optional[ReadLoop]:
    """The loop that pipeline `at` opens (`… | while read f`, `while IFS= read -r f`, `for f in $(…)`), or None."""
    stages = pipelines[at].commands
    last = stages[-1].argv if stages else []
    if last[:1] == ["for"]:
        return _for_loop_at(pipelines, at)
    if not last or last[0] not in ("while", "until"):
        return None
    i = 1
    while i < len(last) and ASSIGNMENT.search(last[i]):
        i += 1
    if i >= len(last) or last[i] != "read":
        return None
    names = _read_names(last[i + 1 :])
    end = _done_after(pipelines, at)
    if not names or end < 0:
        return None
    producer = stages[-2] if len(stages) > 1 else _done_input(pipelines[end].commands[0])
    return ReadLoop(body=list(range(at + 1, end)), producer=producer, vars=names)


def as_xargs(cmd: SimpleCommand, names: Sequence[str]) -> Optional[SimpleCommand]:
    """A body command as the xargs command it amounts to: its words with $NAME as `{}`; None when it names none."""
    alternatives = "|".join(names)
    pattern = re.compile(r"\$(?:" + alternatives + r")\b|\$\{(?:" + alternatives + r")\}", re.ASCII)
    argv = list(cmd.argv)
    while argv[:1] in (["do"], ["then"], ["else"]):
        argv = argv[1:]
    if not any(pattern.search(a) for a in argv):
        return None
    return _command(["xargs", "-I", "{}", *(pattern.sub("{}", a) for a in argv)])
