# make_plots_test — `make plots` rebuilds bench when a file bench is built from
# is newer than it (its sources, the contract's tables, the trace reader it
# links, a CMakeLists.txt, the build's cache), and only then: a README edited
# after the build is no reason to relink bench (which would race whatever runs
# it meanwhile, the test suite's other tests among them).
# The Makefile and ./bench run in a scratch tree of a few files, over a build
# folder whose allocstamp is a script that says it drew; no real build there,
# so a rebuild is seen as "the build failed".
import os
import shutil
import subprocess
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
INPUTS = [
    "harness/driver/run/run_one.cpp",
    "harness/driver/run/run_one.h",
    "harness/contract/keys.def",
    "harness/contract/keys.h",
    "harness/trace/trace_reader.cpp",
    "harness/driver/CMakeLists.txt",
    "CMakeLists.txt",
    "build/CMakeCache.txt",
]
NOT_INPUTS = ["harness/driver/README.md", "harness/contract/README.md", "docs/usage.md"]


class MakePlots(unittest.TestCase):
    def setUp(self):
        self.tree = tempfile.mkdtemp(prefix="allocstamp-make-plots-")
        shutil.copy(os.path.join(ROOT, "Makefile"), self.tree)
        shutil.copy(os.path.join(ROOT, "bench"), self.tree)
        for name in INPUTS + NOT_INPUTS:
            path = os.path.join(self.tree, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write("x\n")
            os.utime(path, (1_000_000_000, 1_000_000_000))
        build = os.path.join(self.tree, "build")
        os.makedirs(os.path.join(build, "bin"))
        os.makedirs(os.path.join(build, "lib"))
        open(os.path.join(build, "lib", "libmemprof.so"), "w").close()
        self.bench = os.path.join(build, "bin", "allocstamp")
        with open(self.bench, "w") as f:
            f.write("#!/bin/sh\necho \"drew with the current bench: $*\"\n")
        os.chmod(self.bench, 0o755)
        os.utime(self.bench, (1_000_000_100, 1_000_000_100))

    def tearDown(self):
        shutil.rmtree(self.tree, ignore_errors=True)

    def make_plots(self):
        return subprocess.run(
            ["make", "-C", self.tree, "--no-print-directory", "plots", "DIR=results/x", "JOBS=1"],
            capture_output=True,
            text=True,
            timeout=120,
            env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": self.tree},
        )

    def newer(self, name):
        os.utime(os.path.join(self.tree, name), (1_000_000_200, 1_000_000_200))

    def test_a_current_bench_draws_without_a_build(self):
        r = self.make_plots()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("drew with the current bench: plot results/x", r.stdout)

    def test_a_readme_or_doc_edited_after_the_build_rebuilds_nothing(self):
        for name in NOT_INPUTS:
            with self.subTest(name=name):
                self.newer(name)
                r = self.make_plots()
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                self.assertIn("drew with the current bench", r.stdout)

    def test_each_file_bench_is_built_from_rebuilds_it_when_newer(self):
        for name in INPUTS:
            with self.subTest(name=name):
                self.newer(name)
                r = self.make_plots()
                os.utime(os.path.join(self.tree, name), (1_000_000_000, 1_000_000_000))
                self.assertNotEqual(r.returncode, 0, name + " newer than bench, and no rebuild:\n" + r.stdout)
                self.assertIn("error: the build failed", r.stderr)
                self.assertNotIn("drew with the current bench", r.stdout)


if __name__ == "__main__":
    unittest.main()
