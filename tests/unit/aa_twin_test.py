# aa_twin_test — scripts/aa-twin counts as a false claim every standing the
# twin's cells got (faster, slower, leaner, heavier), apart from the ones
# marked unstable and the indistinguishable ones, and never the reference's
# own rows; a sweep with a claim makes the run exit 1.
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
HEADER = ("workload,app,size,args,allocator,alloc_library,alloc_env,tm,threads,metric,kind,n,mean,median,stddev,"
          "ci95_low,ci95_high,geomean,geomean_ci95_low,geomean_ci95_high,vs_reference,vs_reference_ci95_low,"
          "vs_reference_ci95_high,vs_reference_adjusted_low,vs_reference_adjusted_high,vs_reference_adjusted_level,"
          "standing")


def row(allocator, threads, metric, ratio, low, high, standing):
    return ("ssca2,ssca2,small,,%s,lib,,,%s,%s,timed,5,1,1,0,1,1,1,1,1,%s,%s,%s,%s,%s,0.998,%s"
            % (allocator, threads, metric, ratio, low, high, low, high, standing))


def sweep(root, name, rows):
    os.makedirs(os.path.join(root, name))
    with open(os.path.join(root, name, "summary.csv"), "w") as f:
        f.write("# allocstamp summary.csv schema 8\n" + HEADER + "\n" + "\n".join(rows) + "\n")


def score(root):
    return subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "aa-twin"), "--score", root,
                           "--alloc", "jemalloc"], capture_output=True, text=True)


class Score(unittest.TestCase):
    def test_a_twins_standing_is_a_claim_unstable_and_the_reference_are_not(self):
        with tempfile.TemporaryDirectory() as root:
            sweep(root, "sweep-01", [row("jemalloc", 1, "wall_ns", 1, "", "", "reference"),
                                     row("jemalloc", 1, "maxrss_kb", 1, "", "", "reference"),
                                     row("jemalloc-twin", 1, "wall_ns", 0.99, 0.9, 1.1, "indistinguishable"),
                                     row("jemalloc-twin", 2, "wall_ns", 0.55, 0.47, 0.65, "unstable"),
                                     row("jemalloc-twin", 2, "maxrss_kb", 0.994, 0.992, 0.996, "leaner")])
            sweep(root, "sweep-02", [row("jemalloc-twin", 1, "wall_ns", 1.01, 0.95, 1.07, "indistinguishable"),
                                     row("jemalloc-twin", 2, "wall_ns", 0.62, 0.5, 0.7, "unstable")])
            done = score(root)
            self.assertEqual(done.returncode, 1, done.stdout + done.stderr)
            self.assertIn("sweep-01: 1 of 3 cells claimed, 1 unstable", done.stdout)
            self.assertIn("ssca2 t=2 maxrss_kb leaner 0.994 [0.992, 0.996]", done.stdout)
            self.assertIn("sweep-02: 0 of 2 cells claimed, 1 unstable", done.stdout)
            self.assertIn("clean: 1 of 2 sweeps", done.stdout)

    def test_clean_sweeps_exit_0(self):
        with tempfile.TemporaryDirectory() as root:
            sweep(root, "sweep-01", [row("jemalloc-twin", 1, "wall_ns", 1.01, 0.95, 1.07, "indistinguishable")])
            done = score(root)
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            self.assertIn("clean: 1 of 1 sweeps", done.stdout)

    def test_a_folder_without_sweeps_is_refused(self):
        with tempfile.TemporaryDirectory() as root:
            done = score(root)
            self.assertEqual(done.returncode, 2)
            self.assertIn("error: no sweep with a summary.csv", done.stderr)


if __name__ == "__main__":
    unittest.main()
