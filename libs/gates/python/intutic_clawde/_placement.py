"""Where a mutating fault may apply (a port of libs/faults/src/placement.ts; same decision).

Mutating faults never run outside a sandbox. Inside a repetition's sandbox the entrypoint, as root
before it drops to the unprivileged agent user, writes SANDBOX_MARKER_PATH (a root-owned file no one
else may write) and sets INTUTIC_SANDBOX=1: the agent cannot make that file, and a host user cannot
trip it by accident. Elsewhere the plan's mutating faults are left out and said so.
"""
from __future__ import annotations

import os
import stat
from typing import Any, Callable, Dict, List, Mapping, Tuple

SANDBOX_MARKER_PATH = "/run/intutic/sandbox"
SANDBOX_ENV = "INTUTIC_SANDBOX"
MUTATING_REFUSED = "mutating_fault_refused"
MUTATING_FAULT_IDS = frozenset(("llm.context_trim", "llm.model_degrade", "tool.stale_data", "mcp.toolset_change", "inject.tool_result"))


def sandbox_placement(env: Mapping[str, str], lstat: Callable[[str], os.stat_result] = os.lstat) -> Tuple[bool, str]:
    """(mutating_allowed, why)."""
    if env.get(SANDBOX_ENV) != "1":
        return False, f"not inside a sandbox ({SANDBOX_ENV} is not 1)"
    try:
        info = lstat(SANDBOX_MARKER_PATH)
    except OSError:
        return False, f"not inside a sandbox ({SANDBOX_MARKER_PATH}, which the sandbox's entrypoint writes, is missing)"
    if not stat.S_ISREG(info.st_mode) or info.st_uid != 0 or info.st_mode & 0o022:
        return False, f"not inside a sandbox ({SANDBOX_MARKER_PATH} is not a root-owned file that only root may write)"
    return True, "inside a repetition sandbox"


def applicable_plan(plan: Dict[str, Any], allowed: bool) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
    """The plan with what may apply here, and the mutating faults left out (none when allowed)."""
    if allowed:
        return plan, []
    refused = [f for f in plan["faults"] if f["id"] in MUTATING_FAULT_IDS]
    return dict(plan, faults=[f for f in plan["faults"] if f["id"] not in MUTATING_FAULT_IDS]), refused


def refusal_message(component: str, refused: List[Dict[str, Any]], why: str) -> str:
    listed = ", ".join(f"{f['index']}:{f['id']}" for f in refused)
    return (f"{component}: mutating fault(s) {listed} not applied: {why}; mutating faults apply only for a repetition inside its sandbox "
            "(intutic chaos run); fail-safe faults still apply")[:500]
