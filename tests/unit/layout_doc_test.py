# layout_doc_test — docs/development.md's layout table against the tree: every
# file or folder the table names exists, every folder of the driver has its
# row and every unit in it (a .cpp or .h, named `name.*`, `name.cpp` or
# `name.h`) is named in that row, and every driver folder has a README saying
# what enters and what leaves it.
import glob
import os
import re
import sys
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DOC = os.path.join(ROOT, "docs", "development.md")
DRIVER = "harness/driver"
NAME = re.compile(r"`([^`\s]+)`")
# What looks like a file or unit: a path ending in .* or a known extension.
FILEISH = re.compile(r"^[\w./*-]+\.(\*|cpp|h|c|def|json|py|gp|md|sh|txt)$")


def layout_rows(text):
    """[(folders, names)] of the table's rows: the backticked folders of the first column and the
    backticked names of the second."""
    rows = []
    for line in text.splitlines():
        if not line.startswith("| `"):
            continue
        cells = line.split(" | ")
        if len(cells) < 2:
            continue
        folders = NAME.findall(cells[0])
        names = NAME.findall(" | ".join(cells[1:]))
        rows.append((folders, names))
    return rows


def exists_somewhere(name, folders):
    """Whether name exists under one of the row's folders or the repository's root."""
    for base in [f for f in folders if f.endswith("/")] + [""]:
        path = os.path.join(ROOT, base, name)
        if glob.glob(path) or (name.endswith(".*") and glob.glob(path[:-2] + ".*")):
            return True
    return False


def driver_units(folder):
    """The stems of the .cpp and .h files directly in harness/driver/<folder>."""
    path = os.path.join(ROOT, folder)
    return sorted({os.path.splitext(f)[0] for f in os.listdir(path) if f.endswith((".cpp", ".h"))})


def named_units(names):
    return {os.path.splitext(os.path.basename(n))[0] for n in names if FILEISH.match(n)}


class LayoutTable(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(DOC) as f:
            cls.rows = layout_rows(f.read())

    def test_the_table_is_there(self):
        self.assertGreater(len(self.rows), 10, "docs/development.md has no layout table")

    def test_every_named_file_exists(self):
        missing = []
        for folders, names in self.rows:
            for folder in folders:
                if not os.path.exists(os.path.join(ROOT, folder)):
                    missing.append(folder)
            for name in names:
                if FILEISH.match(name) and not exists_somewhere(name, folders):
                    missing.append("%s (row %s)" % (name, ", ".join(folders)))
        self.assertEqual(missing, [], "named in docs/development.md's layout table but not in the tree")

    def test_every_driver_folder_and_unit_is_named(self):
        rows = {f.rstrip("/"): names for folders, names in self.rows for f in folders}
        folders = [DRIVER] + sorted(os.path.join(DRIVER, d) for d in os.listdir(os.path.join(ROOT, DRIVER))
                                    if os.path.isdir(os.path.join(ROOT, DRIVER, d)))
        problems = []
        for folder in folders:
            if folder not in rows:
                problems.append("%s/ has no row" % folder)
                continue
            named = named_units(rows[folder])
            if folder.endswith("/commands"):
                # the verbs are named by their verb, the unit by its file name
                named |= set(NAME.findall(" ".join(rows[folder]))) | set(rows[folder])
            for unit in driver_units(folder):
                if unit not in named:
                    problems.append("%s/%s is not named in its row" % (folder, unit))
        self.assertEqual(problems, [], "docs/development.md's layout table leaves out part of the driver")

    def test_every_driver_stage_says_what_enters_and_leaves(self):
        missing = []
        for d in sorted(os.listdir(os.path.join(ROOT, DRIVER))):
            path = os.path.join(ROOT, DRIVER, d)
            if os.path.isdir(path):
                readme = os.path.join(path, "README.md")
                if not os.path.exists(readme):
                    missing.append(d + "/README.md")
                    continue
                with open(readme) as f:
                    text = f.read().lower()
                if "enters" not in text or "leaves" not in text:
                    missing.append(d + "/README.md says not what enters and what leaves")
        self.assertEqual(missing, [])


if __name__ == "__main__":
    sys.exit(unittest.main())
