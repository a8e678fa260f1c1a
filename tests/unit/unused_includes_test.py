# unused_includes_test — no file of bench's stages includes one of the project's
# headers it uses nothing from: such an include is an arrow between stages
# (farm-studio look) that no code needs, and it hides what a file really
# depends on. include-what-you-use (Debian's iwyu) reads every source of
# harness/driver as the build compiles it (BUILD/compile_commands.json) and
# says which of the project's quoted includes, in the .cpp or its own header,
# it would remove. Not asked here: its other advice (which standard headers
# to add, forward declarations), which changes no arrow.
# key_names.h and meta_names.h are left alone: their constants are made by
# #include "keys.def" (or meta_fields.def), so iwyu sees them declared in the
# .def file and calls the header unused even where every key comes from it.
# A source that passed is not read again while nothing it is compiled from
# changed (BUILD/unused_includes_passed.json: per source, a digest of this
# test, iwyu's version, the compile command and every file of the compiler's
# dependency list, by content): the first run reads all of them (about 3
# minutes of 2 cores), a run after an edit only what the edit reaches.
#   python3 unused_includes_test.py BUILD_DIR
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BUILD = os.path.abspath(sys.argv.pop(1)) if len(sys.argv) > 1 else os.path.join(ROOT, "build")
DRIVER = os.path.join(ROOT, "harness", "driver")
MADE_FROM_DEF_FILES = {"key_names.h", "meta_names.h"}
# iwyu names a stage's headers by the build tree's view of them (harness/driver/CMakeLists.txt).
STAGE_VIEW = re.compile(re.escape(os.path.join(BUILD, "stage_headers")) + r"/[^/]+/")
PASSED = os.path.join(BUILD, "unused_includes_passed.json")


def digest_of_file(path, memo):
    if path not in memo:
        try:
            with open(path, "rb") as f:
                memo[path] = hashlib.sha256(f.read()).hexdigest()
        except OSError:
            memo[path] = "missing"
    return memo[path]


def signature(entry, tool, memo):
    """A digest of everything iwyu's verdict on one source depends on, or None when the
    compiler's dependency list of it is not there (then it is always read)."""
    output = re.search(r" -o (\S+)", entry["command"])
    if not output:
        return None
    depfile = os.path.join(entry["directory"], output.group(1) + ".d")
    if not os.path.isfile(depfile):
        return None
    with open(depfile) as f:
        deps = f.read().replace("\\\n", " ").split(":", 1)[-1].split()
    h = hashlib.sha256((tool + "\0" + entry["command"]).encode())
    for dep in sorted({os.path.normpath(os.path.join(entry["directory"], d)) for d in deps} | {entry["file"]}):
        h.update(("\0%s\0%s" % (dep, digest_of_file(dep, memo))).encode())
    return h.hexdigest()


def load_passed():
    try:
        with open(PASSED) as f:
            passed = json.load(f)
        return passed if isinstance(passed, dict) else {}
    except (OSError, ValueError):
        return {}


def save_passed(passed):
    """A fresh file renamed into place (never written through a link)."""
    fresh = PASSED + ".new"
    if os.path.lexists(fresh):
        os.unlink(fresh)
    with open(fresh, "x") as f:
        json.dump(passed, f, indent=0, sort_keys=True)
    os.replace(fresh, PASSED)


def removals(iwyu_output):
    """[(file, include)]: the quoted includes iwyu says to remove, by the file's path in the tree."""
    found, current, removing = [], None, False
    for line in iwyu_output.splitlines():
        heading = re.match(r"^(\S+) should (add|remove) these lines:$", line)
        if heading:
            current, removing = STAGE_VIEW.sub(DRIVER + "/", heading.group(1)), heading.group(2) == "remove"
        elif not line.strip() or line.startswith("The full include-list") or line == "---":
            removing = False
        elif removing and line.startswith('- #include "'):
            include = line[2:].split("//")[0].strip()
            if include.split('"')[1] not in MADE_FROM_DEF_FILES:
                found.append((os.path.relpath(current, ROOT), include))
    return found


class UnusedIncludes(unittest.TestCase):
    def test_the_parser_reads_what_iwyu_says(self):
        said = (
            "%s/stage_headers/plan/plan/shards.h should remove these lines:\n"
            '- #include "plan/plan.h"  // lines 10-10\n\n'
            "The full include-list for x:\n---\n"
            "%s/run/run_one.cpp should remove these lines:\n"
            '- #include "key_names.h"  // lines 13-13\n'
            "- #include <map>  // lines 9-9\n\n" % (BUILD, DRIVER)
        )
        self.assertEqual(removals(said), [("harness/driver/plan/shards.h", '#include "plan/plan.h"')])

    @unittest.skipUnless(shutil.which("iwyu_tool"), "include-what-you-use is not installed: apt-get install iwyu")
    def test_no_stage_includes_a_header_it_uses_nothing_from(self):
        database = os.path.join(BUILD, "compile_commands.json")
        self.assertTrue(os.path.isfile(database), "%s: configure the build first (make build)" % database)
        with open(database) as f:
            entries = {os.path.normpath(e["file"]): e for e in json.load(f)}
        sources = sorted(
            os.path.join(folder, name)
            for folder, _, names in os.walk(DRIVER)
            for name in names
            if name.endswith(".cpp")
        )
        self.assertGreater(len(sources), 50)
        missing = [s for s in sources if s not in entries]
        self.assertEqual(missing, [], "not in %s: reconfigure (make build)" % database)
        with open(os.path.abspath(__file__), "rb") as f:
            tool = hashlib.sha256(f.read()).hexdigest()
        tool += subprocess.run(["include-what-you-use", "--version"], capture_output=True, text=True).stdout
        memo = {}
        signatures = {s: signature(entries[s], tool, memo) for s in sources}
        passed = load_passed()
        to_read = [s for s in sources if signatures[s] is None or passed.get(s) != signatures[s]]
        print("unused_includes: %d sources to read, %d unchanged since they passed" % (len(to_read), len(sources) - len(to_read)))
        if not to_read:
            return
        run = subprocess.run(
            ["iwyu_tool", "-p", BUILD, "-j", "2"] + to_read + ["--", "-Xiwyu", "--no_fwd_decls"],
            capture_output=True,
            text=True,
            timeout=1200,
        )
        # iwyu exits non-zero whenever it has advice; an error of the compiler it runs is not advice.
        self.assertNotIn(" error: ", run.stdout + run.stderr, run.stdout[-3000:] + run.stderr[-3000:])
        # Every source read (each with its own header): either correct or with a full include-list.
        read = run.stdout.count("The full include-list for") + run.stdout.count("has correct #includes/fwd-decls")
        self.assertGreaterEqual(read, len(to_read), run.stdout[-3000:] + run.stderr[-3000:])
        unused = removals(run.stdout)
        # A source passes when neither it nor its own header (same folder and name) has an include to remove.
        failing = {os.path.join(ROOT, os.path.splitext(f)[0] + ".cpp") for f, _ in unused}
        for s in to_read:
            if s not in failing and signatures[s] is not None:
                passed[s] = signatures[s]
            else:
                passed.pop(s, None)
        save_passed(passed)
        self.assertEqual(unused, [], "\n".join("%s: remove %s" % u for u in unused))


if __name__ == "__main__":
    unittest.main()
