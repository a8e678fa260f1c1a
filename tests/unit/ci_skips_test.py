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


# As ctest 3.25 writes them (checked on a small project): a DISABLED_ gtest and
# a test without an executable have an empty command and "Test Passed."; the
# disabled one is listed in LastTestsDisabled.log; a Python unittest that
# skipped a case passes with "OK (skipped=1)".
def empty_command_block(number, name):
    return (f"{number}/3 Testing: {name}\n{number}/3 Test: {name}\nCommand: \"\"\nDirectory: /b\n"
            f"\"{name}\" start time: \nOutput:\n{DASHES}\n<end of output>\nTest time =   0.00 sec\n{DASHES}\n"
            f"Test Passed.\n\"{name}\" end time: Nov 28 19:38 UTC\n{DASHES}\n\n")


OTHER_KINDS = ("Start testing: Nov 28 19:38 UTC\n" + DASHES + "\n" + empty_command_block(1, "A.Off") +
               block(2, "py", "test_a (__main__.T) ... ok\ntest_b (__main__.T) ... skipped 'no thing'\n"
                     "Ran 2 tests in 0.000s\n\nOK (skipped=1)", False) +
               "Unable to find executable: /nonexistent/prog\n" + empty_command_block(3, "notrun"))


class CiSkips(unittest.TestCase):
    def run_script(self, log, *args, disabled=""):
        with tempfile.TemporaryDirectory() as build:
            os.makedirs(os.path.join(build, "Testing", "Temporary"))
            with open(os.path.join(build, "Testing", "Temporary", "LastTest.log"), "w") as f:
                f.write(log)
            if disabled:
                with open(os.path.join(build, "Testing", "Temporary", "LastTestsDisabled.log"), "w") as f:
                    f.write(disabled)
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

    def test_disabled_not_run_and_python_skips_are_found(self):
        self.assertEqual(ci_skips.skipped_tests(OTHER_KINDS, "1:A.Off\n"), [
            ("A.Off", "disabled (a DISABLED_ test or the DISABLED property): it never ran"),
            ("py", "1 Python test case(s) skipped: no thing"),
            ("notrun", "not run: ctest found no executable for it"),
        ])
        code, out = self.run_script(OTHER_KINDS, disabled="1:A.Off\n")
        self.assertEqual(code, 1)
        self.assertIn("3 test(s) skipped, 0 expected, 3 unexpected", out)

    def test_an_expected_failure_is_found(self):
        # @unittest.expectedFailure passes whatever the case asserts: it holds nothing.
        log = ("Start testing: Nov 28 19:38 UTC\n" + DASHES + "\n" +
               block(1, "xf", "test_a (__main__.T) ... expected failure\nRan 1 test in 0.000s\n\n"
                     "OK (expected failures=1)", False))
        self.assertEqual(ci_skips.skipped_tests(log), [
            ("xf", "1 Python test case(s) marked expectedFailure: they pass whatever they assert")])
        code, out = self.run_script(log)
        self.assertEqual(code, 1, out)

    def test_a_gtest_skip_listed_as_disabled_keeps_its_reason(self):
        # ctest 3.25 lists GTEST_SKIP tests in LastTestsDisabled.log too.
        code, out = self.run_script(LOG, "--expected", "did not start", disabled="1:Cluster.Runs\n")
        self.assertEqual(code, 0, out)

    def test_a_missing_log_is_a_usage_error(self):
        with tempfile.TemporaryDirectory() as build, redirect_stderr(io.StringIO()), redirect_stdout(io.StringIO()):
            self.assertEqual(ci_skips.main([build]), 2)


if __name__ == "__main__":
    sys.exit(unittest.main())
