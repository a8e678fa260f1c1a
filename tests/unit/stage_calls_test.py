# stage_calls_test — bench's stages call one way, as they include one way.
# Each stage of harness/driver (the folders of its README's include order) is a
# static library of its own, libbench_STAGE.a in BUILD/harness/driver. A stage
# may use symbols defined in its own library and the ones below it, never one
# defined only in a stage above: a declaration written by hand in a lower
# stage (no include to catch) and defined higher up is an arrow back up that
# include_order_test cannot see. A failure names the symbol, the stage that
# uses it and the stage that defines it.
#   python3 stage_calls_test.py BUILD_DIR
import os
import subprocess
import sys
import unittest

from include_order_test import stage_order

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BUILD = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 else os.path.join(ROOT, "build")


def stages():
    """The stages of harness/driver, ground floor first: the folders of its README's include
    order, as include_order_test reads it (main.cpp, a file, is bench itself and no library)."""
    names = stage_order("harness/driver/README.md")
    return [n for n in names if os.path.isdir(os.path.join(ROOT, "harness", "driver", n))]


def symbols(archive):
    """(defined, undefined): the global symbols an archive's objects define, and those they use
    without defining them (nm; mangled names)."""
    out = subprocess.run(["nm", "-g", "--format=posix", archive], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2 or line.endswith(":"):
            continue  # an object's name inside the archive
        (undefined if parts[1] in ("U", "w", "v") else defined).add(parts[0])
    return defined, undefined - defined


def demangled(name):
    return subprocess.run(["c++filt", name], capture_output=True, text=True).stdout.strip() or name


class StageCalls(unittest.TestCase):
    def test_every_stage_is_a_library_that_uses_nothing_from_above(self):
        order = stages()
        self.assertGreaterEqual(len(order), 8, order)
        tables = {}
        for stage in order:
            archive = os.path.join(BUILD, "harness", "driver", "libbench_%s.a" % stage)
            self.assertTrue(os.path.isfile(archive), "%s: no library %s (make build)" % (stage, archive))
            tables[stage] = symbols(archive)
            self.assertTrue(tables[stage][0], "%s defines nothing" % archive)
        upward = []
        for i, stage in enumerate(order):
            below = set().union(*(tables[s][0] for s in order[: i + 1]))
            for name in sorted(tables[stage][1] - below):
                above = [s for s in order[i + 1 :] if name in tables[s][0]]
                if above:
                    upward.append("%s uses %s, defined in %s above it" % (stage, demangled(name), above[0]))
        self.assertEqual(upward, [], "\n".join(upward))


if __name__ == "__main__":
    unittest.main()
