# runs_csv.py — the scripts' one reader (and writer) of a results folder's
# runs.csv, and reader of its summary.csv: the schema line checked and kept,
# one dict per row (column name -> text). bench's own reader is harness/driver/results/runs.*; the column names
# are those `bench --columns` prints (docs/results.md).
import csv
import os

SCHEMA_PREFIX = "# allocstamp runs.csv schema"


def runs_path(folder_or_file):
    """runs.csv of a results folder, or the file itself."""
    return os.path.join(folder_or_file, "runs.csv") if os.path.isdir(folder_or_file) else folder_or_file


def read_runs(folder_or_file):
    """(schema line, header, rows as dicts) of runs.csv. ValueError when it is not one bench wrote."""
    path = runs_path(folder_or_file)
    with open(path, newline="") as f:
        schema = f.readline()
        if not schema.startswith(SCHEMA_PREFIX):
            raise ValueError("%s: not a runs.csv written by bench (first line %r)" % (path, schema.strip()))
        reader = csv.DictReader(f)
        rows = list(reader)
        return schema, list(reader.fieldnames or []), rows


def read_summary(folder):
    """The rows (dicts) of a results folder's summary.csv. ValueError when it is not one bench wrote."""
    path = os.path.join(folder, "summary.csv")
    with open(path, newline="") as f:
        schema = f.readline()
        if not schema.startswith("# allocstamp summary.csv schema"):
            raise ValueError("%s: not a summary.csv written by bench (first line %r)" % (path, schema.strip()))
        return list(csv.DictReader(f))


def write_runs(folder_or_file, schema, header, rows):
    """Writes rows (dicts) back as runs.csv, schema line first, columns in `header`'s order."""
    with open(runs_path(folder_or_file), "w", newline="") as f:
        f.write(schema)
        writer = csv.DictWriter(f, fieldnames=header, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def integers(row):
    """The row's integer fields as ints (memprof's figures, the workload's metrics)."""
    out = {}
    for key, text in row.items():
        if text and (text.isdigit() or (text[0] == "-" and text[1:].isdigit())):
            out[key] = int(text)
    return out
