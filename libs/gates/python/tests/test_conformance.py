"""The shared conformance tables (libs/gates/conformance/*.json): the TypeScript suites check the
same rows, so both SDKs implement one table."""
import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
CONFORMANCE = os.path.join(HERE, "..", "..", "conformance")

from intutic_clawde._decide import decide_tool_call  # noqa: E402
from intutic_clawde._destructive import detect_destructive_command  # noqa: E402
from intutic_clawde._faults import apply_faults  # noqa: E402
from intutic_clawde._json import hash_tool_input  # noqa: E402
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


class Decisions(unittest.TestCase):
    def test_every_row(self):
        for row in fixture("decisions.json")["tool_calls"]:
            with self.subTest(row["name"]):
                got = decide_tool_call({"rules": row["rules"], "bypasses": row["bypasses"]}, row["call"])
                expected = row["expect"]
                keys = ["decision", "rule", "mode", "destructive", "bypass", "redactedInput"] + (["reason"] if "reason" in expected else [])
                self.assertEqual({k: got[k] for k in keys if k in expected or k in got}, expected)


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
                plan = {"run_id": "run-1", "canary": "E-INTUTIC-0badcafe", "faults": faults}
                state = empty_state("run-1")
                got = []
                for step in seq["steps"]:
                    out = apply_faults(state, plan, {"tool": step["tool"], "input_hash": step["input_hash"], "mcp": step.get("mcp", False)}, step["t_ms"])
                    got.append(out["kind"] + ("*" if out["injected"] else ""))
                self.assertEqual(got, [s["expect"] for s in seq["steps"]])


if __name__ == "__main__":
    unittest.main()
