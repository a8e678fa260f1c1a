# stress_figures.py — what scripts/stress-reference and scripts/stress-fidelity
# share: the description of each stress program's original
# (workloads/stress/reference/programs/<program>.json), how an original is
# compiled from a mimalloc-bench checkout, how one run is measured under
# libmemprof.so and its deterministic figures read, how a "bound" is checked,
# and the one reader and writer of workloads/stress/reference/<size>.csv.
import csv
import json
import os
import re
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stamp_figures as sf  # noqa: E402  (the memprof record reader and the profiled run)
from contract_keys import KEYS  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
PROGRAMS_DIR = os.path.join(ROOT, "workloads", "stress", "reference", "programs")
REFERENCE_DIR = os.path.join(ROOT, "workloads", "stress", "reference")
SIZES = ("tiny", "small")
TIME_UNITS = ("seconds", "milliseconds", "ops_per_s", "wall")

# The figures compared, in the CSV's order: whole-process totals (memprof's
# seq + par + tx; an original marks no regions, so all of its are seq) from
# memprof's start to exit, startup allocations of the shared libraries left out
# on both sides. A figure that is a key of memprof's record takes the key's name.
FIGURES = ("allocs_count", "frees_count", "requested_bytes", KEYS.reallocs_count, "requested_peak_bytes",
           KEYS.live_blocks_peak_count) + tuple(KEYS.named("size_%s_count" % b) for b in sf.HIST_BINS)
COLUMNS = ("program", "threads", "figure", "value", "min", "max")

# Peaks exact with any number of threads: every thread publishes each change
# at once (docs/memprof.md, MEMPROF_PEAK_SLACK). Both sides run with it.
EXACT_PEAKS = {"MEMPROF_PEAK_SLACK": "0"}


class Failure(Exception):
    """An error the user can fix: printed once by main as `error: what — fix`, exit 2."""

    def __init__(self, what, fix):
        super().__init__(what)
        self.what, self.fix = what, fix


def run_main(main):
    """Calls main(); a Failure becomes the house error line and exit 2."""
    try:
        main()
    except Failure as e:
        print("error: %s — %s" % (e.what, e.fix), file=sys.stderr)
        sys.exit(2)


# A bound: "bound: GROUP[; GROUP...][ — why]", GROUP = "ITEM[, ITEM...] [at N
# threads]", ITEM = "[figure ]N%" (relative), "[figure ]±N" (absolute) or
# "figure not compared" (said so, never judged: a figure no bound can hold
# without being empty). An item without a figure holds every figure its group
# names not; "at N threads" holds a group from N threads up (without it, from
# one thread). At a thread count, a figure takes the item of the group with the
# highest N that names it, else that group's figure-less item, else it is exact.
BOUND_ITEM = re.compile(r"\s*(?:(%s)\s+)?(?:(not compared)|(?:±|\+/-|\+-)?\s*([0-9]+(?:\.[0-9]+)?)(%%?))\s*" %
                        "|".join(FIGURES))
BOUND_FROM = re.compile(r"\s*at\s+([0-9]+)\+?\s+threads?\b")


def parse_deterministic(text, where):
    """None for "exact", else the bound's groups in the text's order, each
    {"from_threads": N, "figures": {figure: (kind, value)}, "other": (kind, value) or None};
    kind is "relative", "absolute" or "none" (not compared)."""
    if text == "exact":
        return None
    if not isinstance(text, str) or not text.startswith("bound:"):
        raise Failure("%s: \"deterministic\" is %r" % (where, text),
                      "write \"exact\" or \"bound: N%% [at 2 threads] — why\" (workloads/stress/reference/README.md)")
    rest, groups = text[len("bound:"):], []
    while True:
        group = {"from_threads": 1, "figures": {}, "other": None}
        while True:
            m = BOUND_ITEM.match(rest)
            if not m:
                break
            if m.group(2):
                if not m.group(1):
                    raise Failure("%s: \"not compared\" names no figure in %r" % (where, text),
                                  "write \"FIGURE not compared\", e.g. \"live_blocks_peak_count not compared\"")
                kind, value = "none", 0.0
            else:
                kind = "relative" if m.group(4) == "%" else "absolute"
                value = float(m.group(3)) / (100 if kind == "relative" else 1)
            if m.group(1):
                group["figures"][m.group(1)] = (kind, value)
            else:
                group["other"] = (kind, value)
            rest = rest[m.end():]
            if not rest.startswith(","):
                break
            rest = rest[1:]
        m = BOUND_FROM.match(rest)
        if m:
            group["from_threads"] = int(m.group(1))
            rest = rest[m.end():]
        if not group["figures"] and group["other"] is None:
            raise Failure("%s: no bound can be read from %r" % (where, text),
                          "begin it with the tolerance, e.g. "
                          "\"bound: 2%, live_blocks_peak_count ±3 at 2 threads — why\"")
        groups.append(group)
        rest = rest.lstrip()
        if not rest.startswith(";"):
            return groups
        rest = rest[1:]


def bound_of(figure, bound, threads):
    """The (kind, value) holding `figure` at `threads`, or None: exact."""
    if bound is None:
        return None
    applying = sorted((g for g in bound if g["from_threads"] <= threads), key=lambda g: -g["from_threads"])
    for g in applying:
        if figure in g["figures"]:
            return g["figures"][figure]
    for g in applying:
        if g["other"] is not None:
            return g["other"]
    return None


def compared(figure, bound, threads):
    """False where the bound says the figure is not compared at `threads`."""
    b = bound_of(figure, bound, threads)
    return b is None or b[0] != "none"


def read_text(path):
    with open(path) as f:
        return f.read()


def within(figure, ours, ref, bound, threads):
    """Whether ours is close enough to the original's ref under the program's bound
    (a figure not compared is never judged: see compared())."""
    b = bound_of(figure, bound, threads)
    if b is None:
        return ours == ref
    kind, value = b
    if kind == "none":
        return True
    allowed = value * abs(ref) if kind == "relative" else value
    return abs(ours - ref) <= allowed


def bound_text(figure, bound, threads):
    b = bound_of(figure, bound, threads)
    if b is None:
        return "exact"
    kind, value = b
    if kind == "none":
        return "not compared"
    return "%g%%" % (value * 100) if kind == "relative" else "±%g" % value


def _require(spec, path, where):
    node = spec
    for key in path:
        if not isinstance(node, dict) or key not in node:
            raise Failure("%s has no %s" % (where, ".".join(path)),
                          "see the format in workloads/stress/reference/README.md")
        node = node[key]
    return node


def load_program(path):
    """One program's description, checked; adds "bound" (parse_deterministic) and "path"."""
    where = os.path.relpath(path, ROOT)
    try:
        with open(path) as f:
            spec = json.load(f)
    except (OSError, ValueError) as e:
        raise Failure("%s cannot be read: %s" % (where, e), "fix the file (JSON, format in its folder's README)")
    for key in ("program", "original", "args", "ours", "time", "deterministic"):
        _require(spec, (key,), where)
    for key in ("dir", "sources", "language", "flags", "binary"):
        _require(spec, ("original", key), where)
    if spec["original"]["language"] not in ("c", "c++"):
        raise Failure("%s: original.language is %r" % (where, spec["original"]["language"]), "write \"c\" or \"c++\"")
    if spec["time"].get("unit") not in TIME_UNITS:
        raise Failure("%s: time.unit is %r" % (where, spec["time"].get("unit")),
                      "write one of " + ", ".join(TIME_UNITS))
    if spec["time"]["unit"] != "wall":
        try:
            if re.compile(spec["time"].get("regex") or "").groups != 1:
                raise re.error("needs exactly one group")
        except re.error as e:
            raise Failure("%s: time.regex: %s" % (where, e), "give a Python regex with one group: the printed score")
    matching = spec.get("ours_matching")
    if matching is not None:
        for key in ("option", "figure"):
            _require(spec, ("ours_matching", key), where)
        if matching["figure"] not in FIGURES:
            raise Failure("%s: ours_matching.figure is %r" % (where, matching["figure"]),
                          "name one of " + ", ".join(FIGURES))
    spec["bound"] = parse_deterministic(spec["deterministic"], where)
    spec["path"] = path
    return spec


def load_programs(selected=None, programs_dir=PROGRAMS_DIR):
    """{program: spec} of every json in programs_dir, or of the selected names (error if one has none)."""
    found = {}
    if os.path.isdir(programs_dir):
        for name in sorted(os.listdir(programs_dir)):
            if name.endswith(".json"):
                spec = load_program(os.path.join(programs_dir, name))
                found[spec["program"]] = spec
    if selected:
        missing = [p for p in selected if p not in found]
        if missing:
            raise Failure("no description of %s in %s" % (", ".join(missing), os.path.relpath(programs_dir, ROOT)),
                          "choose from: %s" % (", ".join(found) or "(none yet)"))
        return {p: found[p] for p in selected}
    return found


def threads_of(spec, size):
    """The thread counts the program's args give at size, ascending."""
    args = _require(spec, ("args", size), spec["program"] + ".json")
    return sorted(int(t) for t in args)


def original_argv(spec, size, threads):
    return [str(a) for a in _require(spec, ("args", size, str(threads)), spec["program"] + ".json")]


def original_stdin(spec, size, threads):
    """What the original reads on its stdin (the json's optional "stdin"[size][threads]; else nothing)."""
    return str(spec.get("stdin", {}).get(size, {}).get(str(threads), ""))


def matching_value(spec, threads, reference_rows):
    """The value of ours_matching's option: the original's recorded figure (its median run) less `less` (what
    is not the operations counted), divided among the threads when per_thread, plus offset (per thread when
    per_thread). For an original that runs for a fixed time, so that ours makes as many operations as the
    recorded run did."""
    m = spec["ours_matching"]
    row = (reference_rows or {}).get((spec["program"], threads))
    if row is None or m["figure"] not in row:
        raise Failure("%s at %d threads has no reference row for ours_matching" % (spec["program"], threads),
                      "record it first with scripts/stress-reference")
    value = row[m["figure"]][0] - int(m.get("less", 0))
    if m.get("per_thread"):
        value //= threads
    return value + int(m.get("offset", 0))


def ours_argv(spec, build, size, threads, workloads=None, reference_rows=None):
    """Our program's command line: its binary and app from workloads/workloads.json, the common options, the
    json's own, and ours_matching's option (from reference_rows, read_reference's rows) where the json has one."""
    workloads = workloads or load_workloads()
    w = workloads.get(spec["program"])
    if w is None:
        raise Failure("%s names %r, which workloads/workloads.json does not list" % (spec["program"] + ".json",
                                                                                    spec["program"]),
                      "set \"program\" to our workload's name")
    extra = [str(a) for a in spec["ours"].get(size, {}).get(str(threads), [])]
    if spec.get("ours_matching"):
        extra += [spec["ours_matching"]["option"], str(matching_value(spec, threads, reference_rows))]
    return [os.path.join(build, w["binary"]), w["app"], "--threads", str(threads), "--size", size] + extra


def load_workloads():
    with open(os.path.join(ROOT, "workloads", "workloads.json")) as f:
        return {w["name"]: w for w in json.load(f)["workloads"]}


def compile_original(spec, mimalloc_bench, out_dir):
    """Builds the original from mimalloc-bench's bench/<dir> into out_dir/<program>/ with the recorded
    compiler, flags and defines (-l flags go after the sources); rebuilt when the command or a source changed."""
    o = spec["original"]
    src_dir = os.path.join(mimalloc_bench, "bench", o["dir"])
    sources = [os.path.join(src_dir, s) for s in o["sources"]]
    missing = [s for s in sources if not os.path.exists(s)]
    if missing:
        raise Failure("%s is missing" % missing[0], "pass --mimalloc-bench a checkout of mimalloc-bench; sh6bench's "
                      "and sh8bench's sources come from its build-bench-env.sh ('patch shbench' step), see "
                      "workloads/stress/reference/README.md")
    folder = os.path.join(out_dir, spec["program"])
    os.makedirs(folder, exist_ok=True)
    binary = os.path.join(folder, o["binary"])
    compiler = "gcc" if o["language"] == "c" else "g++"
    flags = [f for f in o["flags"] if not f.startswith("-l")]
    libs = [f for f in o["flags"] if f.startswith("-l")]
    command = ([compiler] + flags + ["-D" + d for d in o.get("defines", [])] + ["-I", src_dir] + sources +
               ["-o", binary] + libs)
    stamp = binary + ".command"
    line = shlex.join(command)
    fresh = (os.path.exists(binary) and os.path.exists(stamp) and read_text(stamp) == line and
             all(os.path.getmtime(s) <= os.path.getmtime(binary) for s in sources))
    if not fresh:
        p = subprocess.run(command, capture_output=True, text=True)
        if p.returncode != 0:
            raise Failure("%s's original does not build: %s\n%s" % (spec["program"], line, p.stderr.strip()[-1500:]),
                          "check original.sources/flags/defines in %s" % os.path.relpath(spec["path"], ROOT))
        with open(stamp, "w") as f:
            f.write(line)
    return binary


def figures_of(record):
    """The compared figures of one memprof record."""
    total = lambda what, unit: sum(record[KEYS.named("%s_%s_%s" % (what, r, unit))]  # noqa: E731
                                   for r in ("seq", "par", "tx"))
    f = {
        "allocs_count": total("allocs", "count"),
        "frees_count": total("frees", "count"),
        "requested_bytes": total("requested", "bytes"),
        KEYS.reallocs_count: record[KEYS.reallocs_count],
        "requested_peak_bytes": record[KEYS.heap_requested_peak_bytes],
        KEYS.live_blocks_peak_count: record[KEYS.live_blocks_peak_count],
    }
    for b in sf.HIST_BINS:
        size = KEYS.named("size_%s_count" % b)
        f[size] = record[size]
    return f


def measure(argv, memprof, cwd=None, input_text=""):
    """Runs argv once under libmemprof.so with exact peaks (input_text on its stdin); returns (figures, record)."""
    record, _, _, _ = sf.run_profiled(argv, memprof, cwd=cwd, env_extra=EXACT_PEAKS, input_text=input_text)
    return figures_of(record), record


def representative(samples, spec):
    """Several runs' figures as (value, min, max) per figure: the values of one run — the median one by
    ours_matching's figure, else by allocations — so they belong together; the range over all of them."""
    key = spec["ours_matching"]["figure"] if spec.get("ours_matching") else "allocs_count"
    ranked = sorted(samples, key=lambda s: s[key])
    median = ranked[(len(ranked) - 1) // 2]
    return {f: (median[f], min(s[f] for s in samples), max(s[f] for s in samples)) for f in FIGURES}


def reference_path(size):
    return os.path.join(REFERENCE_DIR, size + ".csv")


def read_reference(path):
    """(rows, notes): rows {(program, threads): {figure: (value, min, max)}}, notes {program: its header comment}."""
    rows, notes = {}, {}
    with open(path, newline="") as f:
        lines = f.read().splitlines()
    for line in lines:
        m = re.match(r"# program (\S+): ", line)
        if m:
            notes[m.group(1)] = line
    reader = csv.DictReader([line for line in lines if not line.startswith("#")])
    if tuple(reader.fieldnames or ()) != COLUMNS:
        raise Failure("%s has columns %s" % (path, reader.fieldnames), "re-record it with scripts/stress-reference")
    for row in reader:
        rows.setdefault((row["program"], int(row["threads"])), {})[row["figure"]] = (
            int(row["value"]), int(row["min"]), int(row["max"]))
    return rows, notes


def replace_program(rows, notes, program, by_threads, note):
    """The reference with one program's rows and note replaced, every other program's kept."""
    rows = {k: v for k, v in rows.items() if k[0] != program}
    rows.update({(program, threads): figures for threads, figures in by_threads.items()})
    return rows, dict(notes, **{program: note})


def write_reference(path, size, rows, notes):
    """Rows and notes by program, in name order; the file's first comment says what it is."""
    with open(path, "w", newline="") as f:
        f.write("# The originals' deterministic figures at size %s, whole process under libmemprof.so with "
                "MEMPROF_PEAK_SLACK=0: value is the median run's (by allocations, or by the json's ours_matching "
                "figure), min and max the range over the runs. Written by scripts/stress-reference; see README.md "
                "here.\n" % size)
        for program in sorted(notes):
            f.write(notes[program] + "\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(COLUMNS)
        for program, threads in sorted(rows):
            figures = rows[(program, threads)]
            for figure in FIGURES:
                if figure in figures:
                    w.writerow([program, threads, figure] + list(figures[figure]))
