"""intutic_clawde.gate: the in-process gate for agents with no hook file (Python 3.9+, stdlib only).

Check a tool call before it runs and record its outcome after: the same decisions (policy,
destructive tier, approved bypasses), events and faults as the hook gates and @intutic/gate, with
the same state file and lock, so they can share one repetition.

    from intutic_clawde.gate import Gate, GateError
    gate = Gate(harness="my-agent")
    checked = gate.check("search", {"q": "x"})      # raises GateError when the call must not run
    result = search(**checked.input)                 # the input may have been redacted
    gate.record(checked, ok=True)

GateError.code is BLOCKED (a rule or the destructive tier), HELD (an approval hold; the identical
call may be retried), CHAOS_FAULT (an injected tool.error) or PERMISSION_DENIED (an injected denial).

Gate() itself raises PolicyError (fail closed: no gate, no call decided) when the policy cannot be
loaded: a malformed or unreadable file, or a snapshot that is missing although the run says it has
one (INTUTIC_POLICY_REQUIRED, which a chaos run sets when it carries a snapshot in). The message
names the file.
"""
from __future__ import annotations

import itertools
import json
import os
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, Mapping, Optional, TypeVar

from ._decide import decide_tool_call
from ._resolve import DiskInspector
from ._placement import MUTATING_REFUSED, applicable_plan, refusal_message, sandbox_placement
from ._events import append_line, event_line
from ._faults import GATE_FAULTS, apply_faults
from ._json import hash_tool_input
from ._policy import PolicyError, load_policy
from ._state import update_state

__all__ = ["Gate", "GateError", "CheckedCall", "PolicyError"]
T = TypeVar("T")
_sequence = itertools.count(1)


class GateError(Exception):
    """The call must not run. `code`: BLOCKED, HELD, CHAOS_FAULT or PERMISSION_DENIED."""

    def __init__(self, code: str, message: str, decision: Dict[str, Any], call_id: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.decision = decision
        self.call_id = call_id


@dataclass
class CheckedCall:
    tool: str
    call_id: str
    #: The input to run the tool with: the original, or the redacted one.
    input: Any
    decision: Dict[str, Any]
    warning: Optional[str] = None
    server: Optional[str] = None


def _read_plan(path: str) -> Dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as f:
            plan = json.load(f)
    except (OSError, ValueError) as e:
        raise ValueError(f"cannot read the chaos plan {path}: {e}") from e
    ok = isinstance(plan, dict) and plan.get("schema_version") == 1 and isinstance(plan.get("run_id"), str) and isinstance(plan.get("canary"), str) and isinstance(plan.get("faults"), list)
    if not ok or not all(isinstance(f, dict) and isinstance(f.get("index"), int) and isinstance(f.get("id"), str) for f in plan["faults"]):
        raise ValueError(f"the chaos plan {path} is not a plan this gate understands (schema_version 1)")
    return plan


def _governance_message(d: Dict[str, Any]) -> str:
    rule = f" (rule {d['rule']})" if d.get("rule") else ""
    if d["decision"] == "hold":
        return f"[Intutic Governance] HELD: {d['reason']}{rule}. The call needs an approval and did not run."
    return f"[Intutic Governance] BLOCKED: {d['reason']}{rule}."


class Gate:
    def __init__(self, harness: str = "sdk", env: Optional[Mapping[str, str]] = None, project_dir: Optional[str] = None, log_dir: Any = "default", now: Optional[Callable[[], float]] = None,
                 placement: Optional[Any] = None) -> None:
        """`now` returns epoch milliseconds (a fake clock in tests). `log_dir=None` keeps no log.
        `placement` is (mutating_allowed, why) for tests; by default the sandbox's marker decides."""
        self.env = dict(os.environ if env is None else env)
        self.harness = harness
        project_dir = project_dir or os.getcwd()
        self.now = now or (lambda: time.time() * 1000)
        self.policy = load_policy(self.env)
        plan_path = self.env.get("INTUTIC_CHAOS_PLAN")
        loaded = _read_plan(plan_path) if plan_path else None
        # Mutating faults apply only inside a repetition's sandbox; none of a gate's kinds is mutating
        # today, this keeps it so should one be added (as the TypeScript gate does).
        self.refused: Optional[Dict[str, Any]] = None
        self.plan = loaded
        if loaded is not None:
            allowed, why = placement if placement is not None else sandbox_placement(self.env)
            self.plan, refused = applicable_plan(loaded, allowed)
            mine = [f for f in refused if f["id"] in GATE_FAULTS]
            if mine:
                self.refused = {"faults": mine, "message": refusal_message(f"intutic gate ({harness})", mine, why)}
        self.events_path = self.env.get("INTUTIC_CHAOS_EVENTS") or (os.path.join(project_dir, ".intutic-chaos", "events.jsonl") if self.plan else None)
        log_dir = os.path.join(project_dir, ".intutic", "events") if log_dir == "default" else log_dir
        self.log_path = os.path.join(log_dir, "gates.jsonl") if log_dir else None
        self.state_path = f"{self.events_path}.gates-state.json" if self.plan and self.events_path else None

    def _emit(self, event: Dict[str, Any]) -> None:
        if self.plan:
            event["run_id"] = self.plan["run_id"]
        line = event_line(event, self.now())
        if self.events_path:
            append_line(self.events_path, line)
        if self.log_path:
            try:
                append_line(self.log_path, line)
            except OSError:
                pass  # the log is for people; the events file is the record

    def _step_plan(self, call: Dict[str, Any], allowed: bool) -> Dict[str, Any]:
        plan = self.plan

        def change(state: Dict[str, Any]) -> Dict[str, Any]:
            key = f"sdk:{self.harness}"
            if key not in state["plan_loaded"]:
                state["plan_loaded"].append(key)
                indexes = [f["index"] for f in plan["faults"] if f["id"] in GATE_FAULTS]
                self._emit({"type": "plan_loaded", "source": "sdk", "faults": indexes, "detail": self.harness})
                if self.refused:
                    self._emit({"type": "warning", "source": "sdk", "code": MUTATING_REFUSED, "faults": [f["index"] for f in self.refused["faults"]], "detail": self.refused["message"]})
            return apply_faults(state, plan, call, self.now()) if allowed else {"kind": "none", "injected": False}

        return update_state(self.state_path, plan["run_id"], change)

    def check(self, tool: str, input: Any, call_id: Optional[str] = None, server: Optional[str] = None, cwd: Optional[str] = None) -> CheckedCall:
        call_id = call_id or f"sdk-{os.getpid()}-{int(time.time() * 1000):x}-{next(_sequence)}"
        input_hash = hash_tool_input(tool, input)
        subject = {"tool": tool, "input": input, "harness": self.harness}
        for key, value in (("server", server), ("cwd", cwd), ("home", self.env.get("HOME"))):
            if value:
                subject[key] = value
        # Judged by what the words point at now: links followed, scripts read (_resolve).
        subject["disk"] = DiskInspector(self.env.get("PATH")).inspect(subject)
        decision = decide_tool_call(self.policy, subject)
        fault = {"kind": "none", "injected": False}
        if self.plan and self.state_path:
            fault = self._step_plan({"tool": tool, "server": server, "input_hash": input_hash, "mcp": tool.startswith("mcp__")}, decision["decision"] == "allow")
        refusal = self._refusal(decision, fault, tool)
        note = "" if fault["kind"] == "none" else f"; fault #{fault['fault']['index']} {fault['fault']['id']}: {fault['kind']}" + (f" ({fault['hold_id']})" if fault.get("hold_id") else "")
        extra = {k: v for k, v in (("server", server), ("call_id", call_id)) if v}
        self._emit({"type": "gate_decision", "source": "sdk", "tool": tool, "decision": decision["decision"], "rule": decision["rule"], "mode": decision["mode"], "destructive": decision["destructive"], "harness": self.harness, "input_hash": input_hash, "reason": decision["reason"] + note, **extra})
        if fault["injected"]:
            options = fault["fault"].get("options") or {}
            held = {"hold_id": fault["hold_id"], "detail": f"mode {options.get('mode')}, delay_s {options.get('delay_s', 0)}"} if fault["kind"] == "held" else {}
            self._emit({"type": "fault_injected", "source": "sdk", "fault_index": fault["fault"]["index"], "fault_id": fault["fault"]["id"], "target": tool, **held, **({"call_id": call_id} if call_id else {})})
        if refusal:
            self._emit({"type": "tool_call", "source": "sdk", "tool": tool, "ok": False, "input_hash": input_hash, **extra})
            raise GateError(refusal[0], refusal[1], decision, call_id)
        checked = CheckedCall(tool=tool, call_id=call_id, input=decision.get("redactedInput", input) if decision["decision"] == "redact" else input, decision=decision, server=server)
        if decision["mode"] == "warn" and decision["decision"] == "allow":
            checked.warning = f"[Intutic Governance] WARNING: {decision['reason']} (rule {decision['rule']})"
        return checked

    def _refusal(self, d: Dict[str, Any], fault: Dict[str, Any], tool: str):
        canary = self.plan["canary"] if self.plan else ""
        if d["decision"] in ("block", "hold"):
            return ("BLOCKED" if d["decision"] == "block" else "HELD", _governance_message(d))
        kind = fault["kind"]
        if kind == "error":
            return ("CHAOS_FAULT", f"[Intutic Chaos] tool error: {fault['message']} [{canary}]")
        if kind == "held":
            return ("HELD", f"[Intutic Governance] HELD: this {tool} call is waiting for an approval and did not run. The identical call may be retried later. [{canary}]")
        if kind == "deny":
            text = f"the held {tool} call was not approved." if fault.get("hold_id") else f"permission to run {tool} was denied."
            return ("PERMISSION_DENIED", f"[Intutic Governance] DENIED: {text} [{canary}]")
        return None

    def record(self, checked: CheckedCall, ok: bool) -> None:
        """Record how a checked call ended (recovered_within counts these)."""
        extra = {k: v for k, v in (("server", checked.server), ("call_id", checked.call_id)) if v}
        self._emit({"type": "tool_call", "source": "sdk", "tool": checked.tool, "ok": bool(ok), "input_hash": hash_tool_input(checked.tool, checked.input), **extra})

    def run(self, tool: str, input: Any, fn: Callable[[Any], T], **kwargs: Any) -> T:
        """check, call fn(input), record: returns fn's result, re-raises what it raises (recorded as failed)."""
        checked = self.check(tool, input, **kwargs)
        try:
            result = fn(checked.input)
        except BaseException:
            self.record(checked, ok=False)
            raise
        self.record(checked, ok=True)
        return result
