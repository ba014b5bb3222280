"""The destructive tier's hits and walk state (from libs/governance/src/tier/destructive.ts): the
rule ids, a hit (rule, detail, the segment forms a bypass is matched against), and how a hit is
recorded (at most MAX_HITS, UNKNOWN shown as `…`).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, List, Optional, Sequence

from ._expand import Scope
from ._paths import UNKNOWN
from ._tier_files import VerbHit

DESTRUCTIVE_RULES = [
    "destructive.rm_recursive", "destructive.protected_file", "destructive.move_protected", "destructive.mkfs", "destructive.dd_device",
    "destructive.device_write", "destructive.disk_tool", "destructive.fork_bomb", "destructive.chmod_chown_recursive", "destructive.git_push_force",
    "destructive.git_reset_hard", "destructive.git_clean", "destructive.sql_drop", "destructive.datastore_wipe", "destructive.infra_teardown",
    "destructive.remote_script", "destructive.find_delete", "destructive.unresolved_script", "destructive.git_history", "destructive.hooks_disabled",
    "destructive.system_disruption", "destructive.ungoverned_agent",
]  # fmt: skip

MAX_HITS = 32
MAX_DEPTH = 8
#: Simple commands analyzed per call; past it the line is too involved to read, and the gate blocks.
MAX_STEPS = 2000
TOO_INVOLVED = ("destructive.unresolved_script", "a command line nested or expanded too deeply to read")


@dataclass
class DestructiveHit:
    rule: str
    #: What matched, for the reason shown to the agent.
    detail: str
    #: The command segment it was found in, as written, and normalized: what a bypass is matched against.
    forms: List[str]


@dataclass
class Walk:
    scope: Scope
    out: List[DestructiveHit]
    steps: int = 0


def push(w: Walk, h: Optional[VerbHit], forms: Sequence[str]) -> None:
    if h and len(w.out) < MAX_HITS:
        w.out.append(DestructiveHit(h[0], h[1].replace(UNKNOWN, "…"), list(dict.fromkeys(f for f in forms if f != ""))))


def child(scope: Scope, **extra: Any) -> Scope:
    return dataclasses.replace(scope, vars=dict(scope.vars), aliases=dict(scope.aliases), depth=scope.depth + 1, **extra)
