# include_order_test — the houses whose stages import one way: each README
# named below has a paragraph starting "**Include order**" whose backticked
# names after its first colon (folders, or files, directly under the house) go
# from the ground floor up.
# A file may include files of its own stage and of the stages before it, never
# one after it; every source file of the house belongs to a named stage. A
# failure names the including file, its line and the stage it reaches up to.
import os
import re
import sys
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
# house → (its README, the folders its includes are resolved against besides the including file's own)
HOUSES = {
    "harness/driver": ("harness/driver/README.md", ["harness/driver"]),
    "harness/memprof/src": ("harness/memprof/README.md", ["harness/memprof/src"]),
}
SOURCE = (".c", ".cpp", ".h", ".inc")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
NAME = re.compile(r"`([^`]+)`")


def stage_order(readme):
    """The backticked names after the first colon of the README's paragraph that starts with
    "**Include order**", ground floor first."""
    with open(os.path.join(ROOT, readme)) as f:
        paragraphs = f.read().split("\n\n")
    for paragraph in paragraphs:
        if paragraph.startswith("**Include order**") and ":" in paragraph:
            return NAME.findall(paragraph.split(":", 1)[1])
    raise AssertionError(f"{readme} has no paragraph starting '**Include order**' with the stages after a colon")


def house_files(house):
    """Every source file under the house, as a path relative to it."""
    top = os.path.join(ROOT, house)
    found = []
    for folder, _, names in os.walk(top):
        found += [os.path.relpath(os.path.join(folder, n), top) for n in names if n.endswith(SOURCE)]
    return sorted(found)


def stage_of(path, order):
    """The stage a house-relative path belongs to: its first folder, or the file itself at the top."""
    first = path.split("/", 1)[0]
    return first if first in order else None


def resolve(path, target, house, include_dirs):
    """The house-relative path an include names, or None when it is outside the house."""
    candidates = [os.path.join(house, os.path.dirname(path), target)] + [os.path.join(d, target) for d in include_dirs]
    for candidate in candidates:
        full = os.path.normpath(os.path.join(ROOT, candidate))
        if os.path.isfile(full):
            relative = os.path.relpath(full, os.path.join(ROOT, house))
            return None if relative.startswith("..") else relative
    return None


def upward_includes(house, readme, include_dirs):
    """(problems, arrows): each include that runs to a later stage, as 'file:line includes X (stage
    S, after T)', and every file outside a named stage; arrows counts the includes between stages."""
    order = stage_order(readme)
    rank = {name: i for i, name in enumerate(order)}
    problems, arrows = [], 0
    for path in house_files(house):
        stage = stage_of(path, rank)
        if stage is None:
            problems.append(f"{house}/{path} is in no stage of {readme}'s include order {order}")
            continue
        with open(os.path.join(ROOT, house, path), errors="replace") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                target = resolve(path, m.group(1), house, include_dirs)
                if target is None:
                    continue
                target_stage = stage_of(target, rank)
                if target_stage is None or target_stage == stage:
                    continue
                arrows += 1
                if rank[target_stage] > rank[stage]:
                    problems.append(f"{house}/{path}:{number} includes \"{m.group(1)}\" of stage "
                                    f"{target_stage}, which comes after {stage} in {readme}'s include order")
    return problems, arrows


class IncludeOrder(unittest.TestCase):
    def test_every_house_imports_downward_only(self):
        for house, (readme, dirs) in HOUSES.items():
            with self.subTest(house=house):
                problems, arrows = upward_includes(house, readme, dirs)
                self.assertEqual(problems, [], "\n".join(problems))
                self.assertGreater(arrows, 0, f"{house}: no include between stages was read")

    def test_a_planted_upward_include_is_named(self):
        # The checker itself: a stage that includes a later one is reported with its file and line.
        import tempfile
        global ROOT
        saved = ROOT
        with tempfile.TemporaryDirectory() as scratch:
            ROOT = scratch
            try:
                os.makedirs(os.path.join(scratch, "h/low"))
                os.makedirs(os.path.join(scratch, "h/high"))
                with open(os.path.join(scratch, "h/README.md"), "w") as f:
                    f.write("**Include order**, ground floor first: `low` → `high`\n")
                with open(os.path.join(scratch, "h/high/b.h"), "w") as f:
                    f.write('#pragma once\n#include "low/a.h"\n')
                with open(os.path.join(scratch, "h/low/a.h"), "w") as f:
                    f.write('#pragma once\n#include <vector>\n#include "high/b.h"\n')
                problems, arrows = upward_includes("h", "h/README.md", ["h"])
            finally:
                ROOT = saved
        self.assertEqual(arrows, 2)
        self.assertEqual(len(problems), 1)
        self.assertIn("h/low/a.h:3", problems[0])
        self.assertIn("stage high, which comes after low", problems[0])


if __name__ == "__main__":
    sys.exit(unittest.main(argv=sys.argv[:1] + sys.argv[1:], exit=False).result.wasSuccessful() is False)
