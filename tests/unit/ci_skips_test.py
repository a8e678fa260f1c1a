# ci_skips_test — scripts/ci-skips on hand-made ctest logs: a skipped test is
# found with its reason, a passed one is not, an unexpected skip fails and an
# expected one (--expected) does not, a missing log is a usage error.
import importlib.machinery
import importlib.util
import io
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout, redirect_stderr

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
_loader = importlib.machinery.SourceFileLoader("ci_skips", os.path.join(ROOT, "scripts", "ci-skips"))
_spec = importlib.util.spec_from_loader("ci_skips", _loader)
ci_skips = importlib.util.module_from_spec(_spec)
_loader.exec_module(ci_skips)

DASHES = "-" * 58


def block(number, name, output, skipped):
    reason = ("Test Pass Reason:\nSkip regular expression found in output. Regex=[\\[  SKIPPED \\]]\n"
              if skipped else "Test Passed.\n")
    return (f"{number}/2 Testing: {name}\n{number}/2 Test: {name}\nCommand: \"t\"\nOutput:\n{DASHES}\n"
            f"{output}\n<end of output>\nTest time =   0.00 sec\n{DASHES}\n{reason}"
            f"\"{name}\" end time: Nov 27 02:47 UTC\n{DASHES}\n\n")


LOG = ("Start testing: Nov 27 02:47 UTC\n" + DASHES + "\n" +
       block(1, "Cluster.Runs", "[ RUN      ] Cluster.Runs\nx.cpp:9: Skipped\nthe local Slurm did not start\n"
             "[  SKIPPED ] Cluster.Runs (0 ms)", True) +
       block(2, "A.Passes", "[ RUN      ] A.Passes\n[       OK ] A.Passes (0 ms)", False))


class CiSkips(unittest.TestCase):
    def run_script(self, log, *args):
        with tempfile.TemporaryDirectory() as build:
            os.makedirs(os.path.join(build, "Testing", "Temporary"))
            with open(os.path.join(build, "Testing", "Temporary", "LastTest.log"), "w") as f:
                f.write(log)
            out = io.StringIO()
            with redirect_stdout(out):
                return ci_skips.main([build, *args]), out.getvalue()

    def test_a_skip_is_found_with_its_reason(self):
        self.assertEqual(ci_skips.skipped_tests(LOG), [("Cluster.Runs", "the local Slurm did not start")])

    def test_an_unexpected_skip_fails_and_names_the_test(self):
        code, out = self.run_script(LOG)
        self.assertEqual(code, 1)
        self.assertIn("unexpected: Cluster.Runs: the local Slurm did not start", out)

    def test_an_expected_skip_passes(self):
        code, out = self.run_script(LOG, "--expected", "did not start")
        self.assertEqual(code, 0)
        self.assertIn("1 test(s) skipped, 1 expected, 0 unexpected", out)

    def test_no_skip_passes(self):
        code, _ = self.run_script(block(2, "A.Passes", "[       OK ] A.Passes (0 ms)", False))
        self.assertEqual(code, 0)

    def test_a_missing_log_is_a_usage_error(self):
        with tempfile.TemporaryDirectory() as build, redirect_stderr(io.StringIO()), redirect_stdout(io.StringIO()):
            self.assertEqual(ci_skips.main([build]), 2)


if __name__ == "__main__":
    sys.exit(unittest.main())
