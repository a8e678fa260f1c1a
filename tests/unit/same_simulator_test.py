# same_simulator_test — scripts/same-simulator on copies of the CI baseline:
# the same folder twice agrees (exit 0); another valid simulator on every
# simulated run differs (exit 1); a damaged identity — meta.json's with a
# trailing space, blank, a control byte, or a blank or padded sim_setup on an
# ok simulated run — is refused (exit 2), so it can never switch .ci/run to
# its 5% floor; and .ci/run's own decision, run with a stub of the script:
# exit 1 relaxes the gate, exit 2 fails CI.
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from contract_keys import KEYS, META  # noqa: E402
from runs_csv import read_runs, write_runs  # noqa: E402

BASELINE = os.path.join(ROOT, "results", "baselines", "ci")
SCRIPT = os.path.join(ROOT, "scripts", "same-simulator")


class SameSimulator(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="same-simulator-")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def folder(self, name, identity=None, setup=None, rows="all"):
        """A copy of the baseline; `identity` replaces meta.json's simulator identity, `setup(old)` each
        ok simulated row's sim_setup (rows="first": only the first's)."""
        path = os.path.join(self.dir, name)
        os.makedirs(path)
        with open(os.path.join(BASELINE, "meta.json")) as f:
            meta = json.load(f)
        if identity is not None:
            meta[META.simulator][META.simulator_identity] = identity
        with open(os.path.join(path, "meta.json"), "w") as f:
            json.dump(meta, f)
        schema, header, table = read_runs(BASELINE)
        if setup is not None:
            for row in table:
                if row[KEYS.kind] == "simulated" and row[KEYS.status] == "ok":
                    row[KEYS.sim_setup] = setup(row[KEYS.sim_setup])
                    if rows == "first":
                        break
        write_runs(path, schema, header, table)
        return path

    def run_script(self, base, cur):
        r = subprocess.run([sys.executable, SCRIPT, base, cur], capture_output=True, text=True)
        return r.returncode, r.stderr

    def test_the_same_folder_agrees(self):
        self.assertEqual(self.run_script(BASELINE, self.folder("copy")), (0, ""))

    def test_another_valid_simulator_differs(self):
        other = self.folder("other", identity="valgrind-3.20.0 callgrind; guest B",
                            setup=lambda s: "valgrind-3.20.0 callgrind; guest B")
        code, err = self.run_script(BASELINE, other)
        self.assertEqual(code, 1, err)
        self.assertIn("valgrind-3.20.0 callgrind; guest B", err)

    def test_a_damaged_identity_in_meta_json_is_refused(self):
        with open(os.path.join(BASELINE, "meta.json")) as f:
            identity = json.load(f)[META.simulator][META.simulator_identity]
        for name, damaged, says in [("trailing", identity + " ", "begins or ends with a space"),
                                    ("leading", " " + identity, "begins or ends with a space"),
                                    ("blank", "  ", "is blank"), ("empty", "", "is blank"),
                                    ("control", identity + "\x1b", "control byte 27"), ("number", 7, "not a text")]:
            code, err = self.run_script(BASELINE, self.folder(name, identity=damaged))
            self.assertEqual(code, 2, name + ": " + err)
            self.assertIn("meta.json: its simulator's identity is", err, name)
            self.assertIn(says, err, name)
            code, err = self.run_script(self.folder(name + "-base", identity=damaged), BASELINE)
            self.assertEqual(code, 2, name + " as the baseline: " + err)

    def test_a_damaged_sim_setup_is_refused_naming_its_row(self):
        for name, setup in [("blank", lambda s: ""), ("padded", lambda s: s + " ")]:
            code, err = self.run_script(BASELINE, self.folder(name, setup=setup, rows="first"))
            self.assertEqual(code, 2, name + ": " + err)
            self.assertRegex(err, r"runs\.csv: data row \d+, column %s: the simulator's identity is" % KEYS.sim_setup)

    def test_a_folder_without_simulated_runs_is_refused(self):
        path = self.folder("unsimulated")
        schema, header, table = read_runs(path)
        write_runs(path, schema, header, [r for r in table if r[KEYS.kind] != "simulated"])
        code, err = self.run_script(BASELINE, path)
        self.assertEqual(code, 2, err)
        self.assertIn("has no ok simulated runs", err)


class CiRunDecision(unittest.TestCase):
    """.ci/run's use of the script's exit code, run with a stub of the script."""

    def decide(self, exit_code):
        with open(os.path.join(ROOT, ".ci", "run")) as f:
            text = f.read()
        block = re.search(r"^allow=.*?^esac\n", text, re.M | re.S)
        self.assertIsNotNone(block, ".ci/run decides with a case on scripts/same-simulator's exit code")
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "scripts"))
            stub = os.path.join(d, "scripts", "same-simulator")
            with open(stub, "w") as f:
                f.write("#!/bin/sh\nexit %d\n" % exit_code)
            os.chmod(stub, 0o755)
            script = "set -euo pipefail\ncurrent=x\n" + block.group(0) + 'echo "allow=$allow ${simulated_threshold[*]}"\n'
            r = subprocess.run(["bash", "-c", script], cwd=d, capture_output=True, text=True)
            return r.returncode, r.stdout

    def test_only_two_valid_simulators_relax_the_gate(self):
        self.assertEqual(self.decide(0), (0, "allow=machine,library,env \n"))
        self.assertEqual(self.decide(1), (0, "allow=machine,library,env,simulator --threshold simulated=5\n"))
        for damaged in (2, 3):
            code, out = self.decide(damaged)
            self.assertNotEqual(code, 0, out)
            self.assertNotIn("simulator", out)


if __name__ == "__main__":
    unittest.main()
