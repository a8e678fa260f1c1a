# run_seconds_script_test — scripts/run-seconds, the ETA's table: each shape
# of run gets the median of its planned runs' wall times (not their mean, not
# another column), and a workload's precision rounds (the runs after the
# plan's) their total, apart; an unfinished sweep is refused.
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
HEADER = "run_id,workload,size,kind,threads,allocator,elapsed_ns,wall_ns"


def folder(root, rows, planned, finished=True):
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, "runs.csv"), "w") as f:
        f.write("# allocstamp runs.csv schema 8\n" + HEADER + "\n" + "\n".join(rows) + "\n")
    with open(os.path.join(root, "meta.json"), "w") as f:
        json.dump({"plan": ["k%d" % i for i in range(planned)], "finished": "2026-12-06T03:01:11+0000" if finished else "",
                   "interrupted": False}, f)


def table(root):
    return subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "run-seconds"), root, "--out", "-"],
                          capture_output=True, text=True)


class RunSeconds(unittest.TestCase):
    def test_medians_of_the_plan_and_the_rounds_apart(self):
        with tempfile.TemporaryDirectory() as root:
            folder(root, ["1,churn,large,timed,1,glibc,1,1000000000",
                          "2,churn,large,timed,1,glibc,1,2000000000",
                          "3,churn,large,timed,1,glibc,1,9000000000",
                          "4,churn,large,profiled,1,glibc,1,500000000",
                          "5,churn,large,timed,1,glibc,1,4000000000",   # a precision round's
                          "6,churn,large,timed,1,glibc,1,3000000000"], planned=4)
            done = table(root)
            self.assertEqual(done.returncode, 0, done.stderr)
            lines = done.stdout.splitlines()
            self.assertEqual(lines[0], "# allocstamp run-seconds.csv schema 8")
            self.assertIn("workload,size,kind,threads,allocator,seconds", lines)
            self.assertIn("churn,large,timed,1,glibc,2.000", lines, "the median of 1, 2 and 9 s")
            self.assertIn("churn,large,profiled,1,glibc,0.500", lines)
            self.assertIn("churn,,rounds,,,7.000", lines, "the rounds' 4 + 3 s, not in the shape's median")

    def test_an_unfinished_sweep_is_refused(self):
        with tempfile.TemporaryDirectory() as root:
            folder(root, ["1,churn,large,timed,1,glibc,1,1000000000"], planned=1, finished=False)
            done = table(root)
            self.assertEqual(done.returncode, 2)
            self.assertIn("error: the sweep in", done.stderr)


if __name__ == "__main__":
    unittest.main()
