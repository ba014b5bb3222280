"""The gate's look at the disk (_resolve) and what the tier asks of it (disk-questions.json, shared with
the TypeScript suite): links resolved on a real filesystem, scripts read within bounds, a FIFO never
opened for reading, an agent known by its content under another name."""
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from intutic_clawde._decide import decide_tool_call, disk_questions  # noqa: E402
from intutic_clawde._resolve import MAX_SCRIPT_BYTES, DiskInspector, real_path  # noqa: E402
from intutic_clawde.gate import Gate, GateError  # noqa: E402

EMPTY = {"rules": [], "bypasses": []}


class DiskQuestions(unittest.TestCase):
    def test_every_row(self):
        with open(os.path.join(HERE, "..", "..", "conformance", "disk-questions.json"), encoding="utf-8") as f:
            table = json.load(f)
        for row in table["cases"]:
            with self.subTest(row["name"]):
                q = disk_questions(row["call"])
                self.assertEqual({k: sorted(v) for k, v in q.items()}, row["expect"])


class OnDisk(unittest.TestCase):
    def setUp(self):
        self.root = os.path.realpath(tempfile.mkdtemp())
        self.addCleanup(shutil.rmtree, self.root)
        self.home = os.path.join(self.root, "home")
        self.ws = os.path.join(self.root, "ws")
        os.makedirs(self.home)
        os.makedirs(self.ws)
        with open(os.path.join(self.home, ".bashrc"), "w") as f:
            f.write("# rc\n")

    def decide(self, command, path_var=None, tool="Bash", inp=None):
        call = {"tool": tool, "input": inp if inp is not None else {"command": command}, "cwd": self.ws, "home": self.home}
        call["disk"] = DiskInspector(path_var if path_var is not None else os.environ.get("PATH")).inspect(call)
        return decide_tool_call(EMPTY, call)

    def write(self, name, text, mode=0o644):
        path = os.path.join(self.ws, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)
        return path

    def test_real_path_follows_links_in_every_component_and_folds_the_rest(self):
        os.symlink(self.home, os.path.join(self.ws, "h"))
        os.symlink("h/.bashrc", os.path.join(self.ws, "rc"))
        self.assertEqual(real_path(os.path.join(self.ws, "rc")), os.path.join(self.home, ".bashrc"))
        self.assertEqual(real_path(os.path.join(self.ws, "h", "new", "..", ".profile")), os.path.join(self.home, ".profile"))
        os.symlink("loop", os.path.join(self.ws, "loop"))
        real_path(os.path.join(self.ws, "loop"))  # bounded: no hang, no error

    def test_a_link_planted_in_one_call_makes_the_next_write_a_write_to_its_target(self):
        self.assertEqual(self.decide("ln -sf ~/.bashrc rc")["decision"], "block")  # the link itself
        os.symlink(os.path.join(self.home, ".bashrc"), os.path.join(self.ws, "rc"))  # as if made another way
        self.assertEqual(self.decide("echo x > rc")["rule"], "destructive.protected_file")
        self.assertEqual(self.decide("", tool="Write", inp={"file_path": os.path.join(self.ws, "rc"), "content": "x"})["decision"], "block")
        self.assertEqual(self.decide("echo x > plain.txt")["decision"], "allow")

    def test_a_script_is_judged_by_what_it_holds_now(self):
        self.write("s.sh", "echo building\nnpm run build\n")
        self.assertEqual(self.decide("bash s.sh")["decision"], "allow")
        self.write("s.sh", "echo building\nrm -rf ~\n")
        self.assertEqual(self.decide("bash s.sh")["rule"], "destructive.rm_recursive")
        self.write("t.sh", "#!/bin/sh\nbash s.sh\n", 0o755)
        self.assertEqual(self.decide("./t.sh")["rule"], "destructive.rm_recursive")

    def test_a_script_too_big_or_a_fifo_is_the_worst_case_and_never_hangs(self):
        self.write("big.sh", "echo x\n" * (MAX_SCRIPT_BYTES // 7 + 1))
        self.assertEqual(self.decide("bash big.sh")["rule"], "destructive.unresolved_script")
        os.mkfifo(os.path.join(self.ws, "f.sh"))
        self.assertEqual(self.decide("bash f.sh")["rule"], "destructive.unresolved_script")

    def test_an_agent_under_another_name_is_known_by_its_content(self):
        pkg = os.path.join(self.root, "lib", "node_modules", "@anthropic-ai", "claude-code")
        os.makedirs(os.path.join(self.root, "bin"))
        os.makedirs(pkg)
        entry = os.path.join(pkg, "cli.js")
        with open(entry, "wb") as f:
            f.write(b"#!/usr/bin/env node\n" + os.urandom(1536 * 1024))
        os.chmod(entry, 0o755)
        os.symlink(entry, os.path.join(self.root, "bin", "claude"))
        path_var = os.path.join(self.root, "bin") + ":/usr/bin:/bin"
        shutil.copy(entry, os.path.join(self.home, "helper"))
        self.assertEqual(self.decide("~/helper -p hi", path_var)["rule"], "destructive.ungoverned_agent")
        self.assertEqual(self.decide("node ~/helper -p hi", path_var)["rule"], "destructive.ungoverned_agent")
        with open(os.path.join(self.home, "other"), "wb") as f:
            f.write(b"#!/usr/bin/env node\n" + os.urandom(1536 * 1024))
        self.assertEqual(self.decide("node ~/other", path_var)["decision"], "allow")

    def test_the_gate_resolves_before_it_decides(self):
        os.symlink(os.path.join(self.home, ".bashrc"), os.path.join(self.ws, "rc"))
        gate = Gate(harness="sdk-test", env={"HOME": self.home, "PATH": os.environ.get("PATH", "")}, project_dir=self.ws, log_dir=None)
        with self.assertRaises(GateError) as caught:
            gate.check("Bash", {"command": "echo x > rc"}, cwd=self.ws)
        self.assertEqual(caught.exception.code, "BLOCKED")


if __name__ == "__main__":
    unittest.main()
