"""The shared conformance tables (libs/gates/conformance/*.json): the TypeScript suites check the
same rows, so both SDKs implement one table."""
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
CONFORMANCE = os.path.join(HERE, "..", "..", "conformance")

from intutic_clawde._decide import decide_egress, decide_tool_call  # noqa: E402
from intutic_clawde._destructive import detect_destructive_command  # noqa: E402
from intutic_clawde._faults import apply_faults  # noqa: E402
from intutic_clawde._placement import applicable_plan  # noqa: E402
from intutic_clawde._json import hash_tool_input  # noqa: E402
from intutic_clawde._policy import PolicyError, load_policy  # noqa: E402
from intutic_clawde._state import empty_state  # noqa: E402


def fixture(name):
    with open(os.path.join(CONFORMANCE, name), encoding="utf-8") as f:
        return json.load(f)


class DestructiveTier(unittest.TestCase):
    def test_every_row(self):
        for case in fixture("destructive.json")["cases"]:
            with self.subTest(command=case["command"]):
                hit = detect_destructive_command(case["command"], case.get("cwd"), case.get("home"))
                self.assertEqual(hit[0] if hit else None, case["rule"])


class DestructiveCorpus(unittest.TestCase):
    """destructive-corpus.json: every case decided as it says, exactly like the TypeScript corpus test."""

    corpus = fixture("destructive-corpus.json")

    def context(self, case):
        defaults = self.corpus["defaults"]
        return case.get("cwd", defaults["cwd"]), case.get("home", defaults["home"])

    def blocked(self, case):
        cwd, home = self.context(case)
        call = {"tool": case.get("tool", "Bash"), "input": {"command": case["command"]} if "command" in case else case["input"], "cwd": cwd, "home": home}
        if "disk" in case:
            call["disk"] = case["disk"]
        decision = decide_tool_call({"rules": [], "bypasses": []}, call)
        return decision["decision"] == "block" and decision["destructive"]

    def test_every_command_case(self):
        for case in self.corpus["cases"]:
            if "command" not in case:
                continue
            with self.subTest(family=case["family"], command=case["command"]):
                hit = detect_destructive_command(case["command"], *self.context(case), case.get("disk"))
                self.assertEqual(hit is not None, case["destructive"], hit)
                self.assertEqual(self.blocked(case), case["destructive"])

    def test_every_tool_case(self):
        for case in self.corpus["cases"]:
            if "tool" not in case:
                continue
            with self.subTest(family=case["family"], tool=case["tool"], input=json.dumps(case["input"])):
                self.assertEqual(self.blocked(case), case["destructive"])

    def test_is_large_enough_to_mean_something(self):
        destructive = [c for c in self.corpus["cases"] if c["destructive"]]
        self.assertGreaterEqual(len(destructive), 300)
        self.assertGreaterEqual(len(self.corpus["cases"]) - len(destructive), 100)
        for family in {c["family"] for c in destructive}:
            self.assertGreaterEqual(sum(1 for c in destructive if c["family"] == family), 10, family)


class Decisions(unittest.TestCase):
    def test_every_row(self):
        for row in fixture("decisions.json")["tool_calls"]:
            with self.subTest(row["name"]):
                got = decide_tool_call({"rules": row["rules"], "bypasses": row["bypasses"]}, row["call"])
                expected = row["expect"]
                keys = ["decision", "rule", "mode", "destructive", "bypass", "redactedInput"] + (["reason"] if "reason" in expected else [])
                self.assertEqual({k: got[k] for k in keys if k in expected or k in got}, expected)


class Egress(unittest.TestCase):
    def test_every_row(self):
        for row in fixture("decisions.json")["egress"]:
            with self.subTest(row["name"]):
                got = decide_egress({"rules": row["rules"], "bypasses": row["bypasses"]}, row["host"])
                expected = row["expect"]
                self.assertEqual({k: got[k] for k in ["decision", "rule", "mode", "destructive", "bypass"] if k in expected or k in got}, expected)


class PolicyLoading(unittest.TestCase):
    def test_every_row(self):
        for row in fixture("decisions.json")["policy_loading"]["cases"]:
            with self.subTest(row["name"]), tempfile.TemporaryDirectory() as d, tempfile.TemporaryDirectory() as home:
                env = {"HOME": home, "INTUTIC_SNAPSHOT_RULES": os.path.join(d, "snapshot-rules.json"), "INTUTIC_APPROVED_BYPASSES": os.path.join(d, "approved-bypasses.json"), **row["env"]}
                if isinstance(row["snapshot"], str):
                    with open(env["INTUTIC_SNAPSHOT_RULES"], "w", encoding="utf-8") as f:
                        f.write(row["snapshot"])
                elif row["snapshot"]:
                    os.mkdir(env["INTUTIC_SNAPSHOT_RULES"])
                if row["bypasses"] is not None:
                    with open(env["INTUTIC_APPROVED_BYPASSES"], "w", encoding="utf-8") as f:
                        f.write(row["bypasses"])
                expected = row["expect"]
                if "error" in expected:
                    with self.assertRaises(PolicyError) as ctx:
                        load_policy(env)
                    self.assertEqual(ctx.exception.code, expected["error"])
                    for part in expected.get("message_contains", []) + [env["INTUTIC_SNAPSHOT_RULES"]]:
                        self.assertIn(part, str(ctx.exception))
                    continue
                policy = load_policy(env)
                got = {"rules": [r["id"] for r in policy["rules"]], "bypasses": [b["id"] for b in policy["bypasses"]], "missing_snapshot": policy["missing"]["snapshot"]}
                self.assertEqual(got, expected)


class CallHash(unittest.TestCase):
    def test_same_hash_as_typescript(self):
        for case in fixture("hash.json")["cases"]:
            with self.subTest(tool=case["tool"]):
                self.assertEqual(hash_tool_input(case["tool"], case["input"]), case["hash"])

    def test_key_order_does_not_matter(self):
        self.assertEqual(hash_tool_input("T", {"a": 1, "b": [2, {"c": 3, "d": 4}]}), hash_tool_input("T", {"b": [2, {"d": 4, "c": 3}], "a": 1}))


class FaultSequences(unittest.TestCase):
    def test_every_sequence(self):
        for seq in fixture("fault-sequences.json")["sequences"]:
            with self.subTest(seq["name"]):
                faults = [dict({"index": i, "match": {}, "after_calls": 0, "times": None, "options": {}}, **f) for i, f in enumerate(seq["faults"])]
                plan, refused = applicable_plan({"run_id": "run-1", "canary": "E-INTUTIC-0badcafe", "faults": faults}, seq.get("sandbox", True))
                if "expect_refused" in seq:
                    self.assertEqual([f["index"] for f in refused], seq["expect_refused"])
                state = empty_state("run-1")
                got = []
                for step in seq["steps"]:
                    out = apply_faults(state, plan, {"tool": step["tool"], "input_hash": step["input_hash"], "mcp": step.get("mcp", False)}, step["t_ms"])
                    got.append(out["kind"] + ("*" if out["injected"] else ""))
                self.assertEqual(got, [s["expect"] for s in seq["steps"]])


if __name__ == "__main__":
    unittest.main()
