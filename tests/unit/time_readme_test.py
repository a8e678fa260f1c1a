# time_readme_test — scripts/time-readme against a stand-in bench: the README's
# promises are read from its ```sh block, a command that keeps its promise is
# ok, one twice as slow is OFF (exit 1), one that fails is FAILED, a promise
# over --max-minutes is skipped and said, and the first table's time is read.
import os
import subprocess
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "time-readme")


class TimeReadme(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.readme = os.path.join(self.dir.name, "README.md")
        with open(self.readme, "w") as f:
            f.write("Intro\n\n```sh\n./bench --quick   # 1 seconds\n./bench   # about 30 minutes\n```\n\n"
                    "```\n./bench --not-a-promise   # 5 seconds\n```\n")
        self.bench = os.path.join(self.dir.name, "bench")

    def tearDown(self):
        self.dir.cleanup()

    def fake(self, seconds, status=0):
        with open(self.bench, "w") as f:
            f.write("#!/bin/sh\nsleep 0.3\necho 'churn (size large)'\nsleep %s\nexit %d\n" % (seconds - 0.3, status))
        os.chmod(self.bench, 0o755)

    def run_script(self):
        return subprocess.run([SCRIPT, "--readme", self.readme, "--bench", self.bench, "--max-minutes", "1"],
                              capture_output=True, text=True, timeout=120)

    def test_a_kept_promise_is_ok_and_the_long_one_skipped(self):
        self.fake(1.0)
        r = self.run_script()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"ok +\./bench --quick: promised 1 s, took 1 s \(1\.[0-1]\dx\), first table at 0 s")
        self.assertIn("skipped   ./bench (promised 1800 s, over --max-minutes)", r.stdout)
        self.assertNotIn("not-a-promise", r.stdout, "only ```sh blocks hold promises")

    def test_twice_as_slow_is_off(self):
        self.fake(2.0)
        r = self.run_script()
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"OFF +\./bench --quick: promised 1 s, took 2 s \(2\.\d\dx\)")

    def test_a_failing_command_fails(self):
        self.fake(0.5, status=3)
        r = self.run_script()
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("FAILED    ./bench --quick: exit 3", r.stdout)

    def test_bad_usage_exits_two(self):
        r = subprocess.run([SCRIPT, "--readme", os.path.join(self.dir.name, "nope.md")], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("error: no README at", r.stderr)


if __name__ == "__main__":
    unittest.main()
