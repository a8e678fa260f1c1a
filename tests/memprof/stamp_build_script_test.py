# stamp_build_script_test — what workloads/stamp/reference/build-stamp does to a
# STAMP tree, on hand-made inputs (no STAMP code here): it marks exactly the
# sequential branch's three empty definitions and refuses a tm.h without them;
# it refuses a folder that is not STAMP, a checkout at another commit, an
# output folder that exists; and kmeans-input.py writes STAMP's shipped
# random-n2048-d16-c16.txt byte for byte (its SHA-256, taken from STAMP 9222e27).
import hashlib
import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

REFERENCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "workloads", "stamp", "reference")
STAMP_N2048_SHA256 = "4c265df16d8d7a03f18aeb26f7359f1500625d07b8ae3edf62cc34d55ad29225"

loader = importlib.machinery.SourceFileLoader("build_stamp", os.path.join(REFERENCE, "build-stamp"))
build_stamp = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
loader.exec_module(build_stamp)

# The shape of STAMP's lib/tm.h that matters: a transactional branch that
# defines the marks as calls, the sequential one as nothing.
TM_H = """#ifndef TM_H
#define TM_H 1
#ifdef STM
#  define TM_BEGIN()                  STM_BEGIN_WR()
#  define TM_BEGIN_RO()               STM_BEGIN_RD()
#  define TM_END()                    STM_END()
#else /* SEQUENTIAL */
#  define TM_BEGIN()                    /* nothing */
#  define TM_BEGIN_RO()                 /* nothing */
#  define TM_END()                      /* nothing */
#endif
#endif
"""


def fake_stamp(folder):
    """A folder that looks like STAMP to build-stamp's first checks: lib/tm.h."""
    os.makedirs(os.path.join(folder, "lib"))
    open(os.path.join(folder, "lib", "tm.h"), "w").write(TM_H)


def run_script(*args):
    return subprocess.run([sys.executable, os.path.join(REFERENCE, "build-stamp")] + list(args),
                          capture_output=True, text=True)


class MarkTransactions(unittest.TestCase):
    def test_marks_the_sequential_branch_only(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "tm.h")
            open(path, "w").write(TM_H)
            build_stamp.mark_transactions(path)
            text = open(path).read()
        self.assertIn("#  define TM_BEGIN()                    stamp_mark_begin()\n", text)
        self.assertIn("#  define TM_BEGIN_RO()                 stamp_mark_begin()\n", text)
        self.assertIn("#  define TM_END()                      stamp_mark_end()\n", text)
        self.assertIn("#  define TM_BEGIN()                  STM_BEGIN_WR()\n", text)
        self.assertNotIn("/* nothing */", text)
        self.assertLess(text.index("void stamp_mark_begin(void);"), text.index("#ifdef STM"))

    def test_a_tm_h_without_the_empty_marks_is_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "tm.h")
            open(path, "w").write(TM_H.replace("#  define TM_END()                      /* nothing */\n", ""))
            with self.assertRaises(SystemExit) as e:
                build_stamp.mark_transactions(path)
            self.assertEqual(e.exception.code, 2)


class Refusals(unittest.TestCase):
    def test_not_stamp(self):
        with tempfile.TemporaryDirectory() as tmp:
            p = run_script("--stamp", tmp, "--out", os.path.join(tmp, "out"))
        self.assertEqual(p.returncode, 2)
        self.assertIn("has no lib/tm.h", p.stderr)

    def test_another_commit(self):
        with tempfile.TemporaryDirectory() as tmp:
            fake_stamp(tmp)
            git = ["git", "-C", tmp, "-c", "user.name=t", "-c", "user.email=t@t"]
            subprocess.run(git[:3] + ["init", "-q"], check=True)
            subprocess.run(git + ["add", "."], check=True)
            subprocess.run(git + ["commit", "-qm", "x"], check=True)
            p = run_script("--stamp", tmp, "--out", os.path.join(tmp, "out"))
        self.assertEqual(p.returncode, 2)
        self.assertIn("the reference was measured at 9222e2707e59", p.stderr)

    def test_existing_output(self):
        with tempfile.TemporaryDirectory() as tmp:
            fake_stamp(tmp)
            p = run_script("--stamp", tmp, "--out", tmp)
        self.assertEqual(p.returncode, 2)
        self.assertIn("exists", p.stderr)


class KmeansInput(unittest.TestCase):
    def test_writes_stamps_shipped_file(self):
        p = subprocess.run([sys.executable, os.path.join(REFERENCE, "kmeans-input.py"), "2048", "16", "16"],
                           capture_output=True, check=True)
        self.assertEqual(hashlib.sha256(p.stdout).hexdigest(), STAMP_N2048_SHA256)

    def test_bad_arguments(self):
        p = subprocess.run([sys.executable, os.path.join(REFERENCE, "kmeans-input.py"), "2048"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("error: want ROWS DIMENSIONS CENTERS", p.stderr)


if __name__ == "__main__":
    unittest.main()
