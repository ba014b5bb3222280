"""intutic_clawde.gate: decisions, faults and holds with a fake clock, events, concurrency."""
import json
import multiprocessing
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from intutic_clawde.gate import Gate, GateError, PolicyError  # noqa: E402

CANARY = "E-INTUTIC-1234abcd"


# Every Project's directory, removed when the module's tests end (passed or not).
_PROJECT_DIRS = []


def tearDownModule():
    for path in _PROJECT_DIRS:
        shutil.rmtree(path, ignore_errors=True)


class Project:
    def __init__(self, faults=None, rules=()):
        self.dir = tempfile.mkdtemp(prefix="intutic-py-")
        _PROJECT_DIRS.append(self.dir)
        home = os.path.join(self.dir, "home")
        os.makedirs(os.path.join(home, ".intutic", "hooks"))
        with open(os.path.join(home, ".intutic", "hooks", "snapshot-rules.json"), "w") as f:
            json.dump({"rules": list(rules)}, f)
        self.events = os.path.join(self.dir, "events.jsonl")
        self.env = {"HOME": home, "INTUTIC_CHAOS_EVENTS": self.events}
        if faults is not None:
            plan = {"schema_version": 1, "experiment": "e", "run_id": "r1", "canary": CANARY, "faults": [dict({"index": i, "match": {}, "after_calls": 0, "times": None, "options": {}}, **f) for i, f in enumerate(faults)]}
            with open(os.path.join(self.dir, "plan.json"), "w") as f:
                json.dump(plan, f)
            self.env["INTUTIC_CHAOS_PLAN"] = os.path.join(self.dir, "plan.json")

    def gate(self, **kw):
        return Gate(env=self.env, project_dir=self.dir, **kw)

    def read(self):
        with open(self.events) as f:
            return [json.loads(line) for line in f if line.strip()]


def refusal(fn):
    try:
        fn()
    except GateError as e:
        return e
    raise AssertionError("expected a GateError")


class GateTest(unittest.TestCase):
    def test_allow_and_record(self):
        p = Project()
        gate = p.gate(harness="my-agent")
        checked = gate.check("search", {"q": "x"}, call_id="c1")
        self.assertEqual((checked.input, checked.decision["decision"]), ({"q": "x"}, "allow"))
        gate.record(checked, ok=True)
        events = p.read()
        self.assertEqual([e["type"] for e in events], ["gate_decision", "tool_call"])
        self.assertEqual((events[0]["source"], events[0]["harness"], events[1]["ok"], events[1]["call_id"]), ("sdk", "my-agent", True, "c1"))
        self.assertTrue(os.path.exists(os.path.join(p.dir, ".intutic", "events", "gates.jsonl")))

    def test_block_is_its_own_code_and_marks_destructive(self):
        e = refusal(lambda: Project().gate().check("shell", {"command": "sudo bash -c 'rm -rf /'"}))
        self.assertEqual(e.code, "BLOCKED")
        self.assertEqual((e.decision["destructive"], e.decision["rule"]), (True, "destructive.rm_recursive"))

    def test_tool_error_raises_chaos_fault_with_canary(self):
        p = Project([{"id": "tool.error", "match": {"tool": "search"}, "times": 1, "options": {"message": "index offline"}}])
        gate = p.gate()
        e = refusal(lambda: gate.check("search", {}, call_id="x1"))
        self.assertEqual(e.code, "CHAOS_FAULT")
        self.assertIn("index offline", str(e))
        self.assertIn(CANARY, str(e))
        self.assertEqual(gate.check("search", {}).decision["decision"], "allow")
        types = [ev["type"] for ev in p.read()]
        self.assertEqual(types.count("plan_loaded"), 1)
        injected = [ev for ev in p.read() if ev["type"] == "fault_injected"]
        self.assertEqual([ev["call_id"] for ev in injected], ["x1"])

    def test_delay_hold_with_fake_clock(self):
        p = Project([{"id": "permission.deny_or_delay", "times": 1, "options": {"mode": "delay", "delay_s": 2}}])
        clock = {"t": 0}
        gate = p.gate(now=lambda: clock["t"])
        self.assertEqual(refusal(lambda: gate.check("deploy", {"env": "staging"})).code, "HELD")
        clock["t"] = 1999
        e = refusal(lambda: gate.check("deploy", {"env": "staging"}))
        self.assertTrue(str(e).startswith("[Intutic Governance] HELD:") and CANARY in str(e))
        self.assertEqual(gate.check("deploy", {"env": "prod"}).decision["decision"], "allow")  # a different call
        clock["t"] = 2000
        self.assertEqual(gate.check("deploy", {"env": "staging"}).decision["decision"], "allow")
        injected = [ev for ev in p.read() if ev["type"] == "fault_injected"]
        self.assertEqual(len(injected), 1)
        self.assertEqual(injected[0]["hold_id"], "r1:hold-1")

    def test_hold_then_deny_and_deny(self):
        p = Project([{"id": "permission.deny_or_delay", "match": {"tool": "a"}, "times": 1, "options": {"mode": "hold_then_deny", "delay_s": 0}}, {"id": "permission.deny_or_delay", "match": {"tool": "b"}, "options": {"mode": "deny"}}])
        gate = p.gate()
        self.assertEqual(refusal(lambda: gate.check("a", 1)).code, "HELD")
        self.assertEqual(refusal(lambda: gate.check("a", 1)).code, "PERMISSION_DENIED")
        self.assertEqual(gate.check("a", 1).decision["decision"], "allow")
        self.assertEqual(refusal(lambda: gate.check("b", 1)).code, "PERMISSION_DENIED")

    def test_faults_never_loosen_governance(self):
        rules = [{"id": "h", "subject": "tool", "pattern": "deploy", "action": "hold"}, {"id": "r", "subject": "content", "pattern": "/tok_[0-9]+/", "action": "redact"}]
        p = Project([{"id": "permission.deny_or_delay", "options": {"mode": "delay", "delay_s": 0}}], rules)
        gate = p.gate()
        self.assertEqual(refusal(lambda: gate.check("deploy", {})).code, "HELD")
        self.assertEqual(gate.check("post", {"body": "tok_1 hi"}).input, {"body": "[REDACTED:r] hi"})
        self.assertEqual([ev for ev in p.read() if ev["type"] == "fault_injected"], [])

    def test_run_records_success_and_failure(self):
        p = Project()
        gate = p.gate()
        self.assertEqual(gate.run("t", 2, lambda n: n * 2, call_id="ok"), 4)
        with self.assertRaises(ZeroDivisionError):
            gate.run("t", 0, lambda n: 1 / n, call_id="bad")
        calls = [(ev["call_id"], ev["ok"]) for ev in p.read() if ev["type"] == "tool_call"]
        self.assertEqual(calls, [("ok", True), ("bad", False)])

    def test_policy_error_names_file_and_line(self):
        p = Project()
        path = os.path.join(p.env["HOME"], ".intutic", "hooks", "snapshot-rules.json")
        with open(path, "w") as f:
            f.write('{\n "rules": [\n  {"id": "a", "subject": "tool", "pattern": "x", "action": "deny"}\n ]\n}')
        with self.assertRaises(PolicyError) as ctx:
            p.gate()
        self.assertEqual(ctx.exception.code, "E_POLICY_INVALID")
        self.assertIn(f"{path}:3: rules[0].action must be one of block, hold, redact", str(ctx.exception))

    def test_a_required_snapshot_that_is_missing_fails_closed(self):
        p = Project()
        path = os.path.join(p.env["HOME"], ".intutic", "hooks", "snapshot-rules.json")
        os.remove(path)
        p.gate().check("Bash", {"command": "ls"})  # nothing says there should be one: the destructive tier alone
        p.env["INTUTIC_POLICY_REQUIRED"] = "1"
        with self.assertRaises(PolicyError) as ctx:
            p.gate()
        self.assertEqual(ctx.exception.code, "E_POLICY_INVALID")
        self.assertIn(f"{path}: the policy snapshot is missing", str(ctx.exception))

    def test_unreadable_plan_is_an_error(self):
        p = Project()
        p.env["INTUTIC_CHAOS_PLAN"] = os.path.join(p.dir, "missing.json")
        with self.assertRaisesRegex(ValueError, "cannot read the chaos plan"):
            p.gate()


def _worker(args):
    env, project_dir, i = args
    try:
        Gate(env=env, project_dir=project_dir, log_dir=None).check("Bash", {"command": f"echo {i}"}, call_id=f"c{i}")
        return "allow"
    except GateError as e:
        return e.code


class Concurrency(unittest.TestCase):
    def test_times_exact_across_processes(self):
        p = Project([{"id": "tool.error", "after_calls": 2, "times": 3}])
        with multiprocessing.Pool(8) as pool:
            outcomes = pool.map(_worker, [(p.env, p.dir, i) for i in range(20)])
        self.assertEqual(outcomes.count("CHAOS_FAULT"), 3)
        events = p.read()
        self.assertEqual(sum(1 for e in events if e["type"] == "plan_loaded"), 1)
        self.assertEqual(sum(1 for e in events if e["type"] == "fault_injected"), 3)
        self.assertEqual(sum(1 for e in events if e["type"] == "gate_decision"), 20)


if __name__ == "__main__":
    unittest.main()
