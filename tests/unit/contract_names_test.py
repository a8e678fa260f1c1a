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
           "harness/memprof/src/*.cpp", "harness/memprof/src/*.h"]
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
    """The side tables' column names (SCOPES_COLUMN, SERIES_COLUMN, MICRO_COLUMN,
    CALLSITES_COLUMN) that only a column can be: those with an underscore, but
    run_id (an identity column of every table)."""
    names = []
    with open(path) as f:
        for line in f:
            m = re.match(r"(?:SCOPES|SERIES|MICRO|CALLSITES)_COLUMN\((\w+),", line)
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


class ContractNames(unittest.TestCase):
    def test_the_scan_finds_what_it_must(self):
        keys = ["allocs_seq_count", "elapsed_ns"]
        self.assertEqual(offences('x = row["elapsed_ns"];', keys), [(1, "elapsed_ns")])
        self.assertEqual(offences('f(std::string("allocs_") + r + "_count");', keys), [(1, "allocs_")])
        self.assertEqual(offences('x = row[keys::elapsed_ns];  // not "elapsed_ns"', keys), [])
        self.assertEqual(offences('s = "the elapsed_ns of a run";', keys), [])

    def test_no_metric_is_named_by_hand(self):
        keys = metric_keys()
        self.assertGreater(len(keys), 50, "keys.def could not be read")
        side = side_table_columns()
        self.assertIn("heap_requested_max_bytes", side, "keys.def's side tables could not be read")
        keys += side
        found = []
        for pattern in SCANNED:
            for path in sorted(glob.glob(os.path.join(ROOT, pattern), recursive=True)):
                with open(path) as f:
                    for number, literal in offences(f.read(), keys):
                        found.append("%s:%d: \"%s\"" % (os.path.relpath(path, ROOT), number, literal))
        self.assertEqual(found, [], "write keys::NAME (harness/contract/key_names.h) instead")


if __name__ == "__main__":
    sys.exit(unittest.main())
