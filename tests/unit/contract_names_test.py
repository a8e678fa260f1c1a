# contract_names_test — no metric named by hand in the driver, the trace
# reader or memprof: every key of harness/contract/keys.def that is a
# measurement (not one of the run's identity columns), and every column of the
# side tables (scopes, series, micro, callsites) that only a column can be, is
# written keys::NAME or keys::<table>::NAME (key_names.h), so a misspelled
# name fails to compile instead of silently reading nothing. The
# scan looks at code, not comments: a string literal that is exactly a key's
# name, or a piece of one joined with `+` (e.g. "size_" + bin + "_count").
import glob
import os
import re
import sys
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
KEYS_DEF = os.path.join(ROOT, "harness", "contract", "keys.def")
SCANNED = ["harness/driver/**/*.cpp", "harness/driver/**/*.h", "harness/trace/*.cpp", "harness/trace/*.h",
           "harness/memprof/src/**/*.cpp", "harness/memprof/src/**/*.h"]
LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')


def metric_keys(path=KEYS_DEF):
    """The names of keys.def's keys whose kind is not `id`."""
    names = []
    with open(path) as f:
        for line in f:
            m = re.match(r"KEY\((\w+), \w+, \w+, (\w+),", line)
            if m and m.group(2) != "id":
                names.append(m.group(1))
    return names


def side_table_columns(path=KEYS_DEF):
    """The side tables' column names (SIDE_COLUMN) that only a column can be:
    those with an underscore, but run_id (an identity column of every table)."""
    names = []
    with open(path) as f:
        for line in f:
            m = re.match(r"SIDE_COLUMN\(\w+, (\w+),", line)
            if m and "_" in m.group(1) and m.group(1) != "run_id":
                names.append(m.group(1))
    return names


def code_of(line):
    """The line without a // comment (a // inside a string literal is kept)."""
    out, in_string, i = [], False, 0
    while i < len(line):
        c = line[i]
        if c == "\\" and in_string:
            out.append(line[i:i + 2])
            i += 2
            continue
        if c == '"':
            in_string = not in_string
        elif not in_string and line.startswith("//", i):
            break
        out.append(c)
        i += 1
    return "".join(out)


def offences(text, keys):
    """[(line number, literal)] of the literals naming a metric by hand."""
    names = set(keys)
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        code = code_of(line)
        for m in LITERAL.finditer(code):
            literal = m.group(1)
            joined = re.match(r"\)*\s*\+", code[m.end():]) or code[:m.start()].rstrip().endswith("+")
            if literal in names or (joined and len(literal) > 2 and literal.endswith("_") and
                                    any(k.startswith(literal) for k in names)):
                found.append((number, literal))
    return found


def id_keys(path=KEYS_DEF):
    """The names of keys.def's identity columns (kind `id`)."""
    names = []
    with open(path) as f:
        for line in f:
            m = re.match(r"KEY\((\w+), \w+, \w+, id,", line)
            if m:
                names.append(m.group(1))
    return names


def id_column_offences(text, ids):
    """[(line number, literal)] of identity columns named by hand where a column
    is read or written: a row's field (text, number, has, column with the name as
    the last argument) or a map of values indexed by it. (An identity key's name
    is also a plain word, "size" or "threads", in labels and options: only these
    uses are a column's.)"""
    alt = "|".join(map(re.escape, ids))
    use = re.compile(r'\b(?:text|number|has|column)\((?:[^()"]*,\s*)?"(' + alt + r')"\)|\["(' + alt + r')"\]')
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for m in use.finditer(code_of(line)):
            found.append((number, m.group(1) or m.group(2)))
    return found


def scanned_files():
    """Every source file the scans read."""
    return [path for pattern in SCANNED for path in sorted(glob.glob(os.path.join(ROOT, pattern), recursive=True))]


def scan(find):
    """["path:line: \"literal\""] of what `find` (text -> [(line, literal)]) finds in the scanned sources."""
    found = []
    for path in scanned_files():
        with open(path) as f:
            for number, literal in find(f.read()):
                found.append("%s:%d: \"%s\"" % (os.path.relpath(path, ROOT), number, literal))
    return found


class ContractNames(unittest.TestCase):
    def test_the_scan_reads_the_sources(self):
        # A scan that read nothing would pass every check below.
        files = scanned_files()
        self.assertGreater(len(files), 50, "the scan read %d files" % len(files))
        self.assertIn(os.path.join(ROOT, "harness", "driver", "analysis", "check.cpp"), files)

    def test_the_scan_finds_what_it_must(self):
        keys = ["allocs_seq_count", "elapsed_ns"]
        self.assertEqual(offences('x = row["elapsed_ns"];', keys), [(1, "elapsed_ns")])
        self.assertEqual(offences('f(std::string("allocs_") + r + "_count");', keys), [(1, "allocs_")])
        self.assertEqual(offences('x = row[keys::elapsed_ns];  // not "elapsed_ns"', keys), [])
        self.assertEqual(offences('s = "the elapsed_ns of a run";', keys), [])

    def test_the_identity_scan_finds_column_uses_only(self):
        ids = ["workload", "threads", "run_id"]
        self.assertEqual(id_column_offences('x = t.text(row, "workload");', ids), [(1, "workload")])
        self.assertEqual(id_column_offences('if (t.has("run_id")) v["threads"] = 1;', ids),
                         [(1, "run_id"), (1, "threads")])
        self.assertEqual(id_column_offences('text << label("threads"); j.value("workload", w);', ids), [])
        self.assertEqual(id_column_offences('x = t.text(row, keys::workload);', ids), [])

    def test_no_identity_column_is_named_by_hand(self):
        ids = id_keys()
        self.assertIn("workload", ids, "keys.def could not be read")
        self.assertEqual(scan(lambda text: id_column_offences(text, ids)), [],
                         "write keys::NAME (harness/contract/key_names.h) instead")

    def test_no_metric_is_named_by_hand(self):
        keys = metric_keys()
        self.assertGreater(len(keys), 50, "keys.def could not be read")
        side = side_table_columns()
        self.assertIn("heap_requested_max_bytes", side, "keys.def's side tables could not be read")
        keys += side
        self.assertEqual(scan(lambda text: offences(text, keys)), [],
                         "write keys::NAME (harness/contract/key_names.h) instead")


if __name__ == "__main__":
    sys.exit(unittest.main())
