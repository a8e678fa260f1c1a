# contract_names_test — no metric and no meta.json field named by hand outside
# harness/contract, but in help text and in tests.
#
# The driver, the trace reader and memprof: every key of
# harness/contract/keys.def that is a measurement (not one of the run's
# identity columns), and every column of the side tables (scopes, series,
# micro, callsites) that only a column can be, is written keys::NAME or
# keys::<table>::NAME (key_names.h), so a misspelled name fails to compile
# instead of silently reading nothing. The scan looks at code, not comments: a
# string literal that is exactly a key's name, or a piece of one joined with
# `+` (e.g. "size_" + bin + "_count").
#
# The workloads (C++ and C): the keys they report (@metric elapsed_ns,
# tx_*_count) are keys::NAME, or allocstamp_key_NAME in C (key_names_c.h): a
# literal that is exactly a measurement key's name with an underscore, or any
# key's name (a plain word too) given to a metric call.
#
# The scripts (Python): keys.def's names come from scripts/contract_keys.py
# (KEYS.elapsed_ns, META.finished): a string literal in code (not a docstring,
# not help text) that is exactly a measurement key's name or a meta.json field
# of the document or its machine with an underscore. Names that are plain words
# (status, program, log, started, ...) are every script's words too (a JSON
# spec's "program", git's "log"): they are not scanned there.
#
# meta.json (harness/contract/meta_fields.def): the driver names every field
# meta::NAME or meta::<object>_NAME (meta_names.h). Scanned where a literal is
# used as a JSON key (.value("x", ...), .contains("x"), ["x"], .at, .find,
# .erase, or a {"x", value} pair), so a label ("host" in the report's table) is
# not: the fields of the document, its machine and topology in every driver
# file; every field (those of the objects inside it are plain words: name,
# version, threads) in the files that include meta_names.h. Other JSON the
# driver reads or writes with fields of the same names, and the places left to
# change, are listed below (OTHER_VOCABULARY, PENDING).
import ast
import glob
import os
import re
import sys
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
KEYS_DEF = os.path.join(ROOT, "harness", "contract", "keys.def")
META_DEF = os.path.join(ROOT, "harness", "contract", "meta_fields.def")
SCANNED = ["harness/driver/**/*.cpp", "harness/driver/**/*.h", "harness/trace/*.cpp", "harness/trace/*.h",
           "harness/memprof/src/**/*.cpp", "harness/memprof/src/**/*.h"]
WORKLOADS = ["workloads/**/*.cpp", "workloads/**/*.h", "workloads/**/*.c"]
DRIVER = ["harness/driver/**/*.cpp", "harness/driver/**/*.h"]
PYTHON_FOLDERS = ["scripts", "workloads"]
LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')
# Fields of other JSON the driver reads or writes that share a meta.json field's
# name: not meta.json's, not scanned there (file -> {name: whose it is}).
OTHER_VOCABULARY = {
    "harness/driver/cli/registry.cpp": {"schema": "a registry's", "allocators": "allocators.json's list",
                                        "workloads": "workloads.json's list"},
    "harness/driver/cli/presets.cpp": {"precision": "a preset's"},
    "harness/driver/commands/trace.cpp": {"schema": "the replay's registry's", "workloads": "its list"},
    "harness/driver/analysis/check_rules.cpp": {"kernel": "bench check's threshold group"},
    "harness/driver/analysis/check_judgement.cpp": {"simulator": "a category of --allow-different"},
}
# meta.json fields still named by hand in files another change is editing
# (issue 48): (file, name). Remove an entry once its file writes meta::NAME.
PENDING = set()


def metric_keys(path=KEYS_DEF):
    """The names of keys.def's keys whose kind is not `id`."""
    names = []
    with open(path) as f:
        for line in f:
            m = re.match(r"KEY\((\w+), \w+, \w+, \"[^\"]*\", \w+, (\w+),", line)
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
            m = re.match(r"KEY\((\w+), \w+, \w+, \"[^\"]*\", \w+, id,", line)
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


def files_of(patterns):
    """Every file the patterns match under the root, in order."""
    return [path for pattern in patterns for path in sorted(glob.glob(os.path.join(ROOT, pattern), recursive=True))]


def scanned_files():
    """Every source file the driver's, the trace reader's and memprof's scans read."""
    return files_of(SCANNED)


def scan(find, files=None):
    """["path:line: \"literal\""] of what `find` (text -> [(line, literal)]) finds in the files (the scanned
    sources by default)."""
    found = []
    for path in scanned_files() if files is None else files:
        with open(path) as f:
            for number, literal in find(f.read()):
                found.append("%s:%d: \"%s\"" % (os.path.relpath(path, ROOT), number, literal))
    return found


def without_comments(text):
    """C or C++ source with its comments blanked (// and /* */; a line's end kept, so lines keep their
    numbers), string and character literals kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:end]))
            i = end
        elif c == '"' or (c == "'" and not (i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_"))):
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


METRIC_CALL = re.compile(r'\b(?:metric|memprof_metric|memprof_report_metric)\(\s*"(\w+)"')


def workload_offences(text, keys):
    """[(line number, literal)] of the keys a workload names by hand: a literal that is exactly a key's name
    with an underscore (or a piece of one joined with `+`), or a key's name given to a metric call (a key
    that is a plain word, "status", is a workload's word too elsewhere)."""
    code = without_comments(text)
    found = set(offences(code, [k for k in keys if "_" in k]))
    for number, line in enumerate(code.splitlines(), 1):
        for m in METRIC_CALL.finditer(line):
            if m.group(1) in keys:
                found.add((number, m.group(1)))
    return sorted(found)


def python_files():
    """The Python programs of scripts/ and workloads/ (a .py file, or one whose first line runs python)."""
    found = []
    for folder in PYTHON_FOLDERS:
        for base, _, names in os.walk(os.path.join(ROOT, folder)):
            for name in sorted(names):
                path = os.path.join(base, name)
                try:
                    with open(path) as f:
                        first = f.readline()
                except (UnicodeDecodeError, OSError):
                    continue
                if name.endswith(".py") or (first.startswith("#!") and "python" in first):
                    found.append(path)
    return sorted(found)


HELP_ARGUMENTS = ("help", "description", "epilog", "usage", "metavar")


def python_offences(source, names):
    """[(line number, literal)] of the string literals in Python code that are exactly one of the names:
    comments, docstrings and help text (an argument help=, description=, ...) aside."""
    tree = ast.parse(source)
    exempt = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body and
                isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)):
            exempt.add(id(body[0].value))
        if isinstance(node, ast.keyword) and node.arg in HELP_ARGUMENTS:
            exempt.update(id(sub) for sub in ast.walk(node.value))
    return sorted((node.lineno, node.value) for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names and
                  id(node) not in exempt)


def meta_fields(path=META_DEF):
    """(the fields of meta.json itself, {object: its fields}) of meta_fields.def."""
    document, objects = [], {}
    with open(path) as f:
        for line in f:
            m = re.match(r"META_FIELD\((\w+), ", line)
            if m:
                document.append(m.group(1))
            m = re.match(r"META_OBJECT_FIELD\((\w+), (\w+), ", line)
            if m:
                objects.setdefault(m.group(1), []).append(m.group(2))
    return document, objects


def meta_json_uses(text, names):
    """[(line number, literal)] of the names used as a JSON object's key: .value("x", ...), .contains("x"),
    .at, .find, .erase, ["x"], or a pair {"x", value} (the value not a literal: {"a", "b"} is a list)."""
    if not names:
        return []
    alt = "|".join(map(re.escape, sorted(names)))
    use = re.compile(r'\.(?:value|contains|at|find|erase)\(\s*"(' + alt + r')"|\[\s*"(' + alt + r')"\s*\]|'
                     r'\{\s*"(' + alt + r')"\s*,\s*(?!["\s])')
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for m in use.finditer(code_of(line)):
            found.append((number, m.group(1) or m.group(2) or m.group(3)))
    return found


def meta_offences(relative, text, everywhere, every_field):
    """[(line number, literal)] of meta.json's fields a driver file names by hand: `everywhere` (the
    document's, its machine's and topology's) in any file, every field in a file that includes
    meta_names.h; a name of another JSON's of that file (OTHER_VOCABULARY) is not meta.json's."""
    names = set(every_field if re.search(r'^\s*#\s*include\s+"meta_names\.h"', text, re.M) else everywhere)
    names -= set(OTHER_VOCABULARY.get(relative, {}))
    return meta_json_uses(text, names)


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


    # ---- the workloads (C++ and C) ----
    def test_the_workload_scan_reads_the_workloads(self):
        files = files_of(WORKLOADS)
        self.assertGreater(len(files), 40, "the workload scan read %d files" % len(files))
        for path in ("workloads/tm/runtime.cpp", "workloads/stress/stress.h", "workloads/stamp/reference/marks.c"):
            self.assertIn(os.path.join(ROOT, path), files)

    def test_the_workload_scan_finds_what_it_must(self):
        keys = ["elapsed_ns", "tx_commits_count", "status"]
        self.assertEqual(workload_offences('memprof::metric("elapsed_ns", ns);', keys), [(1, "elapsed_ns")])
        self.assertEqual(workload_offences('memprof_report_metric("status", 1);', keys), [(1, "status")])
        self.assertEqual(workload_offences('const char* k = "tx_commits_count";', keys), [(1, "tx_commits_count")])
        self.assertEqual(workload_offences('memprof::metric(keys::elapsed_ns, ns);  // not "elapsed_ns"', keys), [])
        self.assertEqual(workload_offences('/* "elapsed_ns"\n "tx_commits_count" */ x = "elapsed_ns";', keys),
                         [(2, "elapsed_ns")])
        self.assertEqual(workload_offences('fprintf(stderr, "%s=%lu\\n", allocstamp_key_tx_commits_count, n);', keys),
                         [])
        # A plain word is a workload's word too, but in a metric call.
        self.assertEqual(workload_offences('usage_error("status"); c = \'"\'; s = "elapsed_ms=%.2f";', keys), [])
        self.assertEqual(workload_offences('memprof::metric("segments_count", n);', keys), [])

    def test_no_workload_names_a_metric_by_hand(self):
        keys = metric_keys()
        self.assertIn("elapsed_ns", keys, "keys.def could not be read")
        self.assertEqual(scan(lambda text: workload_offences(text, keys), files_of(WORKLOADS)), [],
                         "write keys::NAME (harness/contract/key_names.h; C: allocstamp_key_NAME, key_names_c.h)")

    # ---- the scripts (Python) ----
    def test_the_script_scan_reads_the_scripts(self):
        files = python_files()
        for path in ("scripts/stamp_figures.py", "scripts/stress_figures.py", "scripts/aa-check",
                     "scripts/stamp-fidelity", "workloads/stamp/reference/build-stamp"):
            self.assertIn(os.path.join(ROOT, path), files)
        self.assertNotIn(os.path.join(ROOT, "scripts", "install-deps"), files)  # a shell script

    def test_the_script_scan_finds_what_it_must(self):
        names = {"elapsed_ns", "busy_runs"}
        self.assertEqual(python_offences('x = row["elapsed_ns"]\n', names), [(1, "elapsed_ns")])
        self.assertEqual(python_offences('F = ("a",\n     "busy_runs")\n', names), [(2, "busy_runs")])
        self.assertEqual(python_offences('x = row[KEYS.elapsed_ns]  # not "elapsed_ns"\n', names), [])
        self.assertEqual(python_offences('"""elapsed_ns"""\ndef f():\n    """busy_runs"""\n', names), [])
        self.assertEqual(python_offences('p.add_argument("--m", help="elapsed_ns")\n', names), [])
        self.assertEqual(python_offences('re.search(r"@metric %s=([0-9]+)" % KEYS.elapsed_ns, t)\n', names), [])

    def test_no_script_names_a_metric_or_meta_field_by_hand(self):
        document, objects = meta_fields()
        names = {k for k in metric_keys() if "_" in k}
        names |= {f for f in document + objects["machine"] + objects["topology"] if "_" in f}
        self.assertIn("busy_runs", names, "meta_fields.def could not be read")
        found = []
        for path in python_files():
            with open(path) as f:
                found += ["%s:%d: \"%s\"" % (os.path.relpath(path, ROOT), number, literal)
                          for number, literal in python_offences(f.read(), names)]
        self.assertEqual(found, [], "write KEYS.NAME or META.NAME (scripts/contract_keys.py) instead")

    # ---- meta.json in the driver ----
    def test_the_meta_scan_finds_json_keys_only(self):
        names = {"machine", "host", "started"}
        self.assertEqual(meta_json_uses('m = doc.value("machine", j).value("host", "?");', names),
                         [(1, "machine"), (1, "host")])
        self.assertEqual(meta_json_uses('if (d.contains("started")) x = d["started"];', names),
                         [(1, "started"), (1, "started")])
        self.assertEqual(meta_json_uses('meta = {{"machine", describe()}, {"started", now}};', names),
                         [(1, "machine"), (1, "started")])
        self.assertEqual(meta_json_uses('row("host", text_of(m.value(meta::machine_host, j)));', names), [])
        self.assertEqual(meta_json_uses('for (auto k : {"host", "cpu"}) allow.count("machine");', names), [])

    def test_no_meta_field_is_named_by_hand(self):
        document, objects = meta_fields()
        self.assertIn("machine", document, "meta_fields.def could not be read")
        self.assertIn("host", objects.get("machine", []), "meta_fields.def could not be read")
        everywhere = set(document + objects["machine"] + objects["topology"])
        every_field = everywhere.union(*objects.values())
        found, pending = [], set()
        for path in files_of(DRIVER):
            relative = os.path.relpath(path, ROOT)
            with open(path) as f:
                for number, literal in meta_offences(relative, f.read(), everywhere, every_field):
                    if (relative, literal) in PENDING:
                        pending.add((relative, literal))
                    else:
                        found.append("%s:%d: \"%s\"" % (relative, number, literal))
        self.assertEqual(found, [], "write meta::NAME or meta::<object>_NAME (harness/contract/meta_names.h) instead")
        self.assertEqual(sorted(PENDING - pending), [], "no longer named by hand: remove them from PENDING")

if __name__ == "__main__":
    sys.exit(unittest.main())
