"""The shapes the shell parser produces (libs/governance/src/shell.ts's interfaces)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import List, Optional


@dataclass
class Redirect:
    op: str
    #: The target word, or a heredoc / here-string body.
    target: str


@dataclass
class SimpleCommand:
    argv: List[str] = field(default_factory=list)
    redirects: List[Redirect] = field(default_factory=list)
    #: Scripts found inside `$(…)`, backticks, `<(…)` and `>(…)` in this command's words.
    substitutions: List["ShellScript"] = field(default_factory=list)
    #: A `( … )` subshell or `{ …; }` group standing where a command would.
    group: Optional["ShellScript"] = None
    #: The command's text as written (heredoc bodies excluded): what a bypass pattern is matched against.
    raw: str = ""
    #: Per argv word: whether it holds an unquoted expansion, so its value splits into words.
    split: Optional[List[bool]] = None
    #: Per argv word: whether it holds an unquoted `{`, so a brace list in it becomes several words.
    braces: Optional[List[bool]] = None


@dataclass
class Pipeline:
    commands: List[SimpleCommand]
    raw: str
    #: Ended by a lone `&`: it runs in the background while the script goes on.
    background: bool = False


@dataclass
class ShellScript:
    raw: str
    pipelines: List[Pipeline]


@dataclass
class Inner:
    kind: str  # 'shell' | 'code' | 'exec'
    #: The script or code text (`shell`, `code`).
    text: Optional[str] = None
    #: The interpreter (`code`).
    program: Optional[str] = None
    #: `$1`… of a `sh -c` script; the argv of an `exec`.
    args: Optional[List[str]] = None
    #: `$0` of a `sh -c` script, when the line gives one.
    arg0: Optional[str] = None


@dataclass
class EffectiveCommand:
    #: What actually runs, wrappers removed; argv[0] is the program's base name.
    argv: List[str]
    inner: List[Inner] = field(default_factory=list)
    #: What the program does with its standard input: 'shell' | 'code' | 'xargs' | None.
    stdin: Optional[str] = None
    #: xargs's replacement string (`-I {}`), when given.
    replace: Optional[str] = None
    #: xargs reads whole lines (`-0`, `-d`), not blank-separated words.
    whole: bool = False
