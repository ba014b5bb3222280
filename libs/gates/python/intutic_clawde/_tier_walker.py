"""The walk as the modules it hands a command to see it (a port of libs/governance/src/tier/walker.ts).

What _tier_stdin and _tier_git find to run goes back through a Walker, in the order found, so they
never import the walk (_destructive) that imports them.
"""
from __future__ import annotations

from typing import Any, List, Optional, Protocol, Sequence

from ._expand import Scope
from ._shell import SimpleCommand
from ._tier_files import VerbHit


class Walker(Protocol):
    def push(self, h: Optional[VerbHit], forms: Sequence[str]) -> None:
        """Records a hit, found in the command segment `forms` names."""

    def shell(self, text: str, scope: Scope, forms: Sequence[str], **extra: Any) -> None:
        """A shell script the command runs: walked in a child of `scope`, with `extra` set there."""

    def code(self, code: str, scope: Scope, forms: Sequence[str], program: str = "") -> None:
        """Interpreter code the command runs, read in `scope`; `program` is its interpreter."""

    def command(self, cmd: SimpleCommand, argv: List[str], scope: Scope, forms: Sequence[str]) -> None:
        """A command the command runs (xargs' own), analyzed as a pipeline of its own."""


def quote(word: str) -> str:
    """A word as the shell reads it back, for a script rebuilt from words."""
    return "'" + word.replace("'", "'\\''") + "'"
