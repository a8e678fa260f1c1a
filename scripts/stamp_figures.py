# stamp_figures.py — what scripts/stamp-reference and scripts/stamp-fidelity
# share: each STAMP app's command line (the original's and ours) at small and
# large, the figures compared, how they are read from a libmemprof.so record,
# and the one reader and writer of workloads/stamp/reference/<size>.csv.
import csv
import os
import re
import subprocess
import tempfile
import time

from contract_keys import KEYS

SIZES = ("small", "large")

# The original's arguments per app and size (from each app's README in STAMP;
# kmeans names its small file random-n2048-d16-c16.txt). "{mesh}" is the
# Triangle mesh our yada writes with --write-mesh (STAMP's largest is not in
# its repository, so both sides run on ours).
STAMP_ARGS = {
    "vacation-low": ("vacation", {"small": "-n2 -q90 -u98 -r16384 -t4096",
                                  "large": "-n2 -q90 -u98 -r1048576 -t4194304"}),
    "vacation-high": ("vacation", {"small": "-n4 -q60 -u90 -r16384 -t4096",
                                   "large": "-n4 -q60 -u90 -r1048576 -t4194304"}),
    "kmeans-low": ("kmeans", {"small": "-m40 -n40 -t0.05 -i inputs/random-n2048-d16-c16.txt",
                              "large": "-m40 -n40 -t0.00001 -i inputs/random-n65536-d32-c16.txt"}),
    "kmeans-high": ("kmeans", {"small": "-m15 -n15 -t0.05 -i inputs/random-n2048-d16-c16.txt",
                               "large": "-m15 -n15 -t0.00001 -i inputs/random-n65536-d32-c16.txt"}),
    "ssca2": ("ssca2", {"small": "-s13 -i1.0 -u1.0 -l3 -p3", "large": "-s20 -i1.0 -u1.0 -l3 -p3"}),
    "labyrinth": ("labyrinth", {"small": "-i inputs/random-x32-y32-z3-n96.txt",
                                "large": "-i inputs/random-x512-y512-z7-n512.txt"}),
    "intruder": ("intruder", {"small": "-a10 -l4 -n2038 -s1", "large": "-a10 -l128 -n262144 -s1"}),
    "genome": ("genome", {"small": "-g256 -s16 -n16384", "large": "-g16384 -s64 -n16777216"}),
    "yada": ("yada", {"small": "-a20 -i {mesh}", "large": "-a15 -i {mesh}"}),
    "bayes": ("bayes", {"small": "-v32 -r1024 -n2 -p20 -s0 -i2 -e2",
                        "large": "-v32 -r4096 -n10 -p40 -i2 -e8 -s1"}),
}
APPS = tuple(STAMP_ARGS)

# How each side prints its measured phase's time (seconds for STAMP's).
STAMP_TIME = re.compile(r"(?:^Time = |^Time: |Elapsed time\s*= |Time taken for kernel 1 is\s*|Learn time = )"
                        r"([0-9.eE+-]+)", re.M)
HIST_BINS = ("le16", "le32", "le48", "le64", "le96", "le128", "le256", "le512", "le1024", "gt1024")

# The figures compared, in the CSV's order. frees are those made by the end of
# the measured phase (STAMP's phase is the whole run; ours end theirs before
# freeing what STAMP never frees), so: allocations minus blocks live then.
# A figure that is a key of memprof's record takes the key's name.
FIGURES = ("allocs_count", "frees_count", "requested_bytes", "requested_peak_bytes", KEYS.live_blocks_peak_count,
           "tx_count", KEYS.allocs_tx_count, KEYS.frees_tx_count, KEYS.requested_tx_bytes) + tuple(
               KEYS.named("size_%s_count" % b) for b in HIST_BINS)
COLUMNS = ("app", "size") + FIGURES + (KEYS.live_blocks_end_count, "time_s")


def read_record(text):
    """The last @memprof record in text, as {key: int or str}, with the
    program's @metric lines (name=value) under their own names."""
    records = [line for line in text.splitlines() if line.startswith("@memprof ")]
    if not records:
        raise ValueError("no @memprof record")
    fields = [line.split()[1] for line in text.splitlines() if line.startswith("@metric ")]
    out = {}
    for field in fields + records[-1].split()[1:]:
        key, _, value = field.partition("=")
        out[key] = int(value) if re.fullmatch(r"-?[0-9]+", value) else value
    return out


def figures_of(record, tx_count):
    """The compared figures of one profiled run. The heap's figures leave out
    libitm's own blocks: in a sequential run of a binary built with -fgnu-tm
    that is the block libitm allocates to register the binary's transactional
    clones, live from before main to exit (memprof counts it as libitm's, not
    the program's); STAMP's sequential build has none."""
    allocs = sum(record[k] for k in (KEYS.allocs_seq_count, KEYS.allocs_par_count, KEYS.allocs_tx_count))
    runtime_blocks = record.get(KEYS.allocs_tm_internal_count, 0)
    runtime_bytes = record.get(KEYS.requested_tm_internal_bytes, 0)
    live_end = record[KEYS.live_blocks_phase_end_count] - runtime_blocks
    f = {
        "allocs_count": allocs,
        "frees_count": allocs - live_end,
        "requested_bytes": sum(record[k] for k in (KEYS.requested_seq_bytes, KEYS.requested_par_bytes,
                                                   KEYS.requested_tx_bytes)),
        "requested_peak_bytes": record[KEYS.heap_requested_peak_bytes] - runtime_bytes,
        KEYS.live_blocks_peak_count: record[KEYS.live_blocks_peak_count] - runtime_blocks,
        "tx_count": tx_count,
        KEYS.allocs_tx_count: record[KEYS.allocs_tx_count],
        KEYS.frees_tx_count: record[KEYS.frees_tx_count],
        KEYS.requested_tx_bytes: record[KEYS.requested_tx_bytes],
        KEYS.live_blocks_end_count: live_end,
    }
    for b in HIST_BINS:
        size = KEYS.named("size_%s_count" % b)
        f[size] = record[size]
    return f


def run_profiled(argv, memprof, cwd=None, env_extra=None, input_text=None):
    """Runs argv under libmemprof.so, input_text (if given) on its stdin; returns (record, stdout, stderr,
    wall seconds)."""
    with tempfile.NamedTemporaryFile("r", suffix=".rec") as rec:
        env = dict(os.environ, LD_PRELOAD=os.path.abspath(memprof), MEMPROF_OUT=rec.name, **(env_extra or {}))
        start = time.monotonic()
        p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, input=input_text)
        wall = time.monotonic() - start
        if p.returncode != 0:
            raise RuntimeError("%s exited %d: %s" % (" ".join(argv), p.returncode, p.stderr.strip()[-400:]))
        return read_record(rec.read()), p.stdout, p.stderr, wall


def read_reference(path):
    """{app: {figure: number}} from a reference CSV (one reader for the format)."""
    out = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            missing = [c for c in COLUMNS if c not in row]
            if missing:
                raise ValueError("%s: missing columns %s" % (path, ", ".join(missing)))
            out[row["app"]] = {k: (float(v) if k == "time_s" else int(v)) for k, v in row.items()
                               if k not in ("app", "size") and v != ""}
    return out


def write_reference(path, size, rows):
    """rows: {app: figures}; written in APPS order."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(COLUMNS)
        for app in APPS:
            if app in rows:
                r = rows[app]
                w.writerow([app, size] + [r.get(k, "") for k in COLUMNS[2:]])
