# aa_check_test — scripts/aa-check counts a planted slowdown as caught only
# when bench check flags the time of a planted cell: a FAIL on another
# allocator's cell, or on a planted cell's memory, is not a catch.
import importlib.machinery
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


if __name__ == "__main__":
    sys.exit(unittest.main())
