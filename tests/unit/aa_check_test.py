# aa_check_test — scripts/aa-check counts a planted slowdown as caught only
# when bench check flags the time of a planted cell: a FAIL on another
# allocator's cell, or on a planted cell's memory, is not a catch; and that
# --score takes only the sweeps that ran to their end.
import importlib.machinery
import json
import subprocess
import tempfile
import importlib.util
import os
import sys
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
_loader = importlib.machinery.SourceFileLoader("aa_check", os.path.join(ROOT, "scripts", "aa-check"))
_spec = importlib.util.spec_from_loader("aa_check", _loader)
aa_check = importlib.util.module_from_spec(_spec)
_loader.exec_module(aa_check)

PLANTED = {("churn", "jemalloc", "1"), ("churn", "jemalloc", "2")}


class PlantedHits(unittest.TestCase):
    def test_the_planted_cells_time_flagged_is_a_catch(self):
        regressed = {("churn", "jemalloc", "1", "elapsed_ns")}
        self.assertEqual(aa_check.planted_hits(regressed, PLANTED, "jemalloc"), {("churn", "jemalloc", "1")})

    def test_another_allocators_cell_is_not_a_catch(self):
        regressed = {("churn", "mimalloc", "1", "elapsed_ns")}
        self.assertEqual(aa_check.planted_hits(regressed, PLANTED, "jemalloc"), set())

    def test_a_planted_cells_memory_is_not_a_catch(self):
        regressed = {("churn", "jemalloc", "1", "maxrss_kb")}
        self.assertEqual(aa_check.planted_hits(regressed, PLANTED, "jemalloc"), set())


class Plants(unittest.TestCase):
    def test_the_default_levels_and_their_names(self):
        plants = aa_check.parse_plants("0.10,0.15,0.30,1")
        self.assertEqual(plants, [0.10, 0.15, 0.30, 1.0])
        self.assertEqual([aa_check.plant_name(x) for x in plants], ["+10%", "+15%", "+30%", "x2"])

    def test_a_bad_level_is_refused(self):
        for text in ("", "0", "-0.1", "fast"):
            with self.assertRaises(SystemExit) as e:
                aa_check.parse_plants(text)
            self.assertEqual(e.exception.code, 2)


def make_sweep(root, name, meta, runs=True):
    folder = os.path.join(root, name)
    os.makedirs(folder)
    if meta is not None:
        with open(os.path.join(folder, "meta.json"), "w") as f:
            json.dump(meta, f)
    if runs:
        with open(os.path.join(folder, "runs.csv"), "w") as f:
            f.write("# allocstamp runs.csv schema 6\nrun_id\n")
    return folder


FINISHED = {"started": "2026-11-27T14:09:21+0000", "finished": "2026-11-27T14:21:51+0000", "interrupted": False,
            "busy_runs": 3, "runs_with_machine_state": 100}


class FinishedSweeps(unittest.TestCase):
    def test_only_sweeps_that_ran_to_their_end_are_scored(self):
        with tempfile.TemporaryDirectory() as root:
            first = make_sweep(root, "sweep-00", FINISHED)
            make_sweep(root, "sweep-01", dict(FINISHED, interrupted=True))
            make_sweep(root, "sweep-02", {"started": FINISHED["started"]})  # still running, or killed
            make_sweep(root, "sweep-03", None)
            make_sweep(root, "sweep-04", FINISHED, runs=False)
            make_sweep(root, "other", FINISHED)
            last = make_sweep(root, "sweep-05", FINISHED)
            self.assertEqual(aa_check.finished_sweeps(root), [first, last])
            self.assertEqual(aa_check.sweep_seconds(first), 750)
            self.assertEqual(aa_check.busy_runs([first, last]), (6, 200))

    def test_pairs_consecutive_and_all(self):
        self.assertEqual(aa_check.comparisons(["a", "b", "c"], "consecutive"), [("a", "b"), ("b", "c")])
        self.assertEqual(aa_check.comparisons(["a", "b", "c"], "all"), [("a", "b"), ("a", "c"), ("b", "c")])

    def test_scoring_one_finished_sweep_is_refused(self):
        with tempfile.TemporaryDirectory() as root:
            make_sweep(root, "sweep-00", FINISHED)
            make_sweep(root, "sweep-01", {"started": FINISHED["started"]})
            p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "aa-check"), "--score", root],
                               capture_output=True, text=True)
            self.assertEqual(p.returncode, 2)
            self.assertIn("1 finished sweep(s)", p.stderr)


if __name__ == "__main__":
    sys.exit(unittest.main())
