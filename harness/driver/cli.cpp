// cli.cpp — the bench command line with CLI11: one table of flags, each with an
// ALLOCSTAMP_* fallback, help text with examples, and validation that turns
// every bad value into a UsageError before anything runs.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "check.h"
#include "errors.h"
#include "format.h"
#include "options.h"
#include "spelling.h"
#include "version.h"

namespace allocstamp {

void to_json(nlohmann::json& j, const Options& o) {
  j = nlohmann::json{{"alloc", o.allocators}, {"workload", o.workloads}, {"threads", o.threads},
                     {"size", o.size},        {"reps", o.reps},           {"profile_reps", o.profile_reps}, {"tm", o.tm},
                     {"timeout", o.timeout_seconds}, {"profile", o.profile}, {"series", o.series},
                     {"callsites", o.callsites}, {"shard", o.shard}, {"shuffle", o.shuffle},  {"seed", o.seed},           {"registry", o.registries},
                     {"workloads_file", o.workload_files}, {"preset", o.preset},
                     {"sizes", o.workload_sizes}, {"args", o.workload_args},
                     {"no_plot", o.no_plot}};
}

void from_json(const nlohmann::json& j, Options& o) {
  o.allocators = j.at("alloc").get<std::vector<std::string>>();
  o.workloads = j.at("workload").get<std::vector<std::string>>();
  o.threads = j.at("threads").get<std::vector<int>>();
  o.size = j.at("size").get<std::string>();
  o.reps = j.at("reps").get<int>();
  o.profile_reps = j.value("profile_reps", -1);
  o.tm = j.at("tm").get<std::string>();
  o.timeout_seconds = j.at("timeout").get<double>();
  // Folders written before `profile` existed say no_profile.
  o.profile = j.value("profile", j.value("no_profile", false) ? std::string("none") : std::string("full"));
  if (!j.contains("profile_reps")) {
    // Folders written before timed and profiled runs were told apart (schema
    // 1 and 2): every run was of one kind, profiled unless profile was none.
    if (o.profile == "none") o.profile_reps = 0;
    else o.profile_reps = o.reps, o.reps = 0;
  }
  if (o.profile == "none") o.profile = "full", o.profile_reps = 0;
  o.series = j.at("series").get<bool>();
  o.callsites = j.value("callsites", std::string());
  o.shard = j.value("shard", std::string());
  o.shuffle = j.at("shuffle").get<bool>();
  o.seed = j.at("seed").get<unsigned>();
  o.registries = j.value("registry", std::vector<std::string>{});
  o.workload_files = j.value("workloads_file", std::vector<std::string>{});
  o.preset = j.value("preset", std::string());
  o.workload_sizes = j.value("sizes", std::map<std::string, std::string>{});
  o.workload_args = j.value("args", std::map<std::string, std::vector<std::string>>{});
  o.no_plot = j.value("no_plot", false);
}

namespace {

const char* kFooter = R"(Examples:
  bench                                          the default job: every allocator, a workload of each
                                                 family at its own size (~100 ms a run), 1 and 2 threads, then figures + report
  bench --preset=maps-containers --alloc=jemalloc   every map container under jemalloc
  bench --list                                   what is installed
  bench --alloc=tcmalloc,jemalloc --workload=vacation     vacation-low and vacation-high as in the
                                                 default job (its sizes, 1 and 2 threads, 5 runs, figures)
  bench --workload=churn --threads=1 --reps=3 --size=small --no-plot    each flag narrows the job
  bench --alloc=/opt/my/libmalloc.so --workload=churn     any allocator by path
  bench --resume results/runs/20261121-101500            finish an interrupted sweep
  bench summarize results/latest                          recompute summary.csv
  bench plot results/latest                               figures/ and report.md, report.html
  bench check --baseline results/base --current results/latest   the regression gate

Each run is a fresh process: LD_PRELOAD=libmemprof.so:<allocator>. Results go to
results/runs/<timestamp>/ (runs.csv, series.csv, scopes.csv, meta.json, summary.csv, logs/),
and results/latest points at the newest. Every flag also reads an ALLOCSTAMP_*
variable, e.g. ALLOCSTAMP_REPS=10.)";

const char* kTraceFooter = R"(A trace holds every allocation call a program made: its thread, time, size,
alignment and region, and the block it made or released. Record once, then
compute memprof's figures from it or replay it under every allocator:
  bench trace record --trace /tmp/py.astrace -- python3 -c 'print(sum(range(10**6)))'
  bench trace stats /tmp/py.astrace
  bench trace replay /tmp/py.astrace --alloc=all --reps=5
MEMPROF_TRACE=path with libmemprof.so preloaded records any program too. A
damaged or truncated trace is refused with exit status 2.)";

const char* kCheckFooter = R"(Cells are paired by workload, app, size, allocator and threads, and compared only
  when they ran the same way: the same workload arguments (runs.csv's args), the
  same allocator library and allocator environment (MALLOC_CONF, MIMALLOC_*, ...),
  the same TM method, on the same machine (meta.json). A pair that differs is
  listed as "not comparable", naming the difference, and the check exits 2 unless
  --allow-different names every difference (args, env, library, tm, machine).
Each compared cell is judged on its ok runs:
  deterministic metrics (counts, requested bytes, live blocks) at 1 thread exactly;
  times and memory (and every metric at threads > 1) by one estimate, the
  geometric mean (the median where a value is 0), with a threshold (time 5%,
  memory and counts 20%) and Welch's t on the logs (the U-test where a value is
  0): the change shown is the quotient of the two estimates shown. An allocator's
  times are compared as its ratio to the reference's in the same repetition
  (drift cancels; both columns show that ratio), the reference's after the
  sweep-wide drift is taken out of the current side (the column shows it so);
  p-values are adjusted by Benjamini-Hochberg per family (time, memory, counts):
  a change is significant when q < --alpha (a level for the q-values, not for
  each test). Cells measured on a busy machine are named.
Verdicts: ok, regressed (worse beyond the threshold: exactly, or significantly),
  improved, noisy (beyond the threshold, not significant), missing (a cell or
  metric on one side only), failed (runs that were ok in the baseline now fail),
  not comparable (the cells ran differently).
Exit status: 0 pass, 1 regressed or failed (missing too with --fail-on-missing, a
  deterministic metric that fell too with --fail-on-change),
  2 unusable input (missing file, not runs.csv, another schema, damaged rows) or
  cells that ran differently.

Examples:
  bench check --baseline results/base --current results/latest
  bench check --baseline a --current b --threshold elapsed_ns=10 --threshold memory=8
  bench check --baseline results/base --current results/latest --deterministic-only   (CI)
  bench check --baseline old --current new --allow-different library   (an allocator upgrade)
  git bisect run sh -c 'make build >/dev/null || exit 125
    ./bench --alloc=glibc --workload=churn --size=tiny --out=/tmp/bisect-$$ >/dev/null
    ./bench check --baseline /tmp/good --current /tmp/bisect-$$ --deterministic-only')";

}  // namespace

// The first word that names a subcommand (check, plot, trace, ...), or "".
std::string command_word(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    std::string w = argv[i];
    for (const char* c : {"check", "plot", "summarize", "trace", "merge", "slurm", "overhead"})
      if (w == c) return w;
  }
  return "";
}

// "did you mean '--threads'? " for the first unknown --flag close to a known one.
std::string nearest_flag(const CLI::App& app, int argc, char** argv) {
  std::vector<std::string> known;
  std::vector<const CLI::App*> apps = {&app};
  for (std::size_t k = 0; k < apps.size(); ++k) {
    for (const CLI::Option* o : apps[k]->get_options())
      for (const std::string& name : o->get_lnames()) known.push_back("--" + name);
    for (const CLI::App* sub : apps[k]->get_subcommands([](const CLI::App*) { return true; })) apps.push_back(sub);
  }
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    if (word == "--") break;
    if (word.rfind("--", 0) != 0) continue;
    std::string name = word.substr(0, word.find('='));
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    std::string best;
    std::size_t best_distance = 3;
    for (const std::string& k : known)
      if (std::size_t d = edit_distance(name, k); d < best_distance) best = k, best_distance = d;
    if (!best.empty()) return "did you mean '" + best + "'? ";
  }
  return "";
}

// What CLI11's checks let through: empty list items, an empty or non-UTF-8
// --out, and numbers that are not numbers (nan, inf).
void validate_values(const Options& o, const CheckOptions& c, int argc, char** argv) {
  // CLI11 drops empty items of a list: "glibc,,jemalloc" would run two allocators quietly.
  bool out_given = false;
  for (int i = 1; i < argc; ++i) {
    std::string w = argv[i];
    if (w == "--") break;
    if (w == "--out" || w.rfind("--out=", 0) == 0) out_given = true;
    for (const char* flag : {"--alloc", "--workload", "--threads"}) {
      std::string value;
      if (w.rfind(std::string(flag) + "=", 0) == 0) value = w.substr(std::strlen(flag) + 1);
      else if (w == flag && i + 1 < argc) value = argv[i + 1];
      else continue;
      if (value.empty() || value.front() == ',' || value.back() == ',' || value.find(",,") != std::string::npos)
        throw UsageError(std::string(flag) + " has an empty item", "write the list without empty entries, e.g. glibc,jemalloc");
    }
  }
  if (out_given && o.out.empty()) throw UsageError("--out is empty", "name the results folder, or leave --out out");
  // UTF-8: every byte above 0x7F in a well-formed sequence.
  for (std::size_t i = 0; i < o.out.size();) {
    unsigned char b = static_cast<unsigned char>(o.out[i]);
    std::size_t n = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
    bool ok = n != 0 && i + n <= o.out.size();
    for (std::size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(o.out[i + k]) >> 6) == 2;
    if (!ok) throw UsageError("--out is not UTF-8 text", "name the results folder in UTF-8");
    i += n;
  }
  if (!std::isfinite(o.timeout_seconds)) throw UsageError("--timeout is not a number of seconds", "give e.g. --timeout 600");
  if (o.timeout_seconds <= 0)
    throw UsageError("--timeout must be > 0 (it is " + number_text("%g", o.timeout_seconds) + ")",
                     "give the seconds a run may take, e.g. --timeout 600");
  if (!std::isfinite(c.alpha)) throw UsageError("--alpha is not a number", "give a level between 0 and 1, e.g. 0.05");
}

// "1-4" in a --threads list stands for 1,2,3,4; a range that runs backwards
// or is not made of numbers is an error that says so.
std::string expand_thread_ranges(const std::string& list) {
  std::string out, item;
  std::istringstream items(list);
  while (std::getline(items, item, ',')) {
    std::string expanded = item;
    auto dash = item.find('-');
    if (dash != std::string::npos && dash > 0) {
      const std::string lo = item.substr(0, dash), hi = item.substr(dash + 1);
      auto number = [](const std::string& s) {
        return !s.empty() && s.size() < 6 && std::all_of(s.begin(), s.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
      };
      if (!number(lo) || !number(hi))
        throw UsageError("--threads '" + item + "' is not a range of thread counts", "write e.g. --threads=1-4 or 1,2,4");
      int a = std::stoi(lo), b = std::stoi(hi);
      if (a > b) throw UsageError("--threads " + item + " runs from high to low", "write it as " + hi + "-" + lo);
      if (b - a > 1024) throw UsageError("--threads " + item + " is too wide a range", "give at most 1024 thread counts");
      expanded.clear();
      for (int t = a; t <= b; ++t) expanded += (expanded.empty() ? "" : ",") + std::to_string(t);
    }
    out += (out.empty() ? "" : ",") + expanded;
  }
  return out;
}

// "tcmalloc, jemalloc" -> "tcmalloc,jemalloc": a list as a shell user quotes
// it, spaces around its items dropped (an item left empty stays empty, and is refused).
std::string trim_items(const std::string& list) {
  std::string out, item;
  std::istringstream items(list);
  bool first = true;
  while (std::getline(items, item, ',')) {
    const auto begin = item.find_first_not_of(" \t"), end = item.find_last_not_of(" \t");
    out += (first ? "" : ",") + (begin == std::string::npos ? std::string() : item.substr(begin, end - begin + 1));
    first = false;
  }
  return !list.empty() && list.back() == ',' ? out + "," : out;
}

Command parse_command_line(int argc, char** argv) {
  // List items are trimmed and thread ranges become lists before CLI11 reads
  // the words (and the variables).
  for (const char* variable : {"ALLOCSTAMP_ALLOC", "ALLOCSTAMP_WORKLOAD", "ALLOCSTAMP_THREADS"})
    if (const char* value = std::getenv(variable); value && *value) setenv(variable, trim_items(value).c_str(), 1);
  if (const char* threads = std::getenv("ALLOCSTAMP_THREADS"); threads && *threads)
    setenv("ALLOCSTAMP_THREADS", expand_thread_ranges(threads).c_str(), 1);
  std::vector<std::string> words(argv, argv + argc);
  for (std::size_t i = 1; i < words.size(); ++i) {
    if (words[i] == "--") break;
    for (const std::string flag : {"--alloc", "--workload", "--threads", "--modes", "--threshold"}) {
      if (words[i].rfind(flag + "=", 0) == 0) words[i] = flag + "=" + trim_items(words[i].substr(flag.size() + 1));
      else if (words[i] == flag && i + 1 < words.size()) words[i + 1] = trim_items(words[i + 1]);
    }
    if (words[i].rfind("--threads=", 0) == 0) words[i] = "--threads=" + expand_thread_ranges(words[i].substr(10));
    else if (words[i] == "--threads" && i + 1 < words.size()) words[i + 1] = expand_thread_ranges(words[i + 1]);
  }
  std::vector<char*> expanded;
  for (std::string& w : words) expanded.push_back(w.data());
  expanded.push_back(nullptr);
  char** original_argv = argv;
  argv = expanded.data();
  Command command;
  Options& o = command.run;
  CheckOptions& c = command.check;
  bool no_profile = false, list = false, columns = false;
  CLI::App app{"bench — how the choice of memory allocator changes the speed and the memory of programs", "bench"};
  app.footer(kFooter);
  app.set_version_flag("--version", std::string("allocstamp ") + kVersion);
  app.option_defaults()->always_capture_default();

  app.add_option("--alloc", o.allocators, "Allocators: names from --list, paths to .so files, or all")
      ->delimiter(',')->envname("ALLOCSTAMP_ALLOC")->default_str("the preset's (default job: all)");
  app.add_option("--workload", o.workloads, "Workloads: names from --list, a family (stamp, intset), a stem (vacation), or all")
      ->delimiter(',')->envname("ALLOCSTAMP_WORKLOAD")->default_str("the preset's (default job: one or more of each family)");
  app.add_option("--threads", o.threads, "Thread counts, e.g. 1,2 or a range 1-4")
      ->delimiter(',')->envname("ALLOCSTAMP_THREADS")->check(CLI::Range(1, 1024))->default_str("the preset's (default job: 1,2)");
  app.add_option("--size", o.size, "Input size of every workload: tiny (tests), small (STAMP's simulator inputs), medium, large")
      ->envname("ALLOCSTAMP_SIZE")->check(CLI::IsMember({"tiny", "small", "medium", "large"}))
      ->default_str("the preset's, per workload (default job: each at ~100 ms or more)");
  app.add_option("--reps", o.reps, "Timed runs of every cell: the allocator alone, no memprof (their times are the ones published)")
      ->envname("ALLOCSTAMP_REPS")->check(CLI::Range(1, 1000))->default_str("the preset's (default job: 5)");
  app.add_option("--profile-reps", o.profile_reps,
                 "Profiled runs of every cell (memprof in front: the memory figures); default 1 at one thread, "
                 "where memprof's counts are exact, and 3 at more; 0: none")
      ->envname("ALLOCSTAMP_PROFILE_REPS")->check(CLI::Range(0, 1000))->default_str("1 or 3");
  app.add_option("--tm", o.tm, "TM method for transactional workloads: ml_wt, gl_wt, serialirr, lock, seq")
      ->envname("ALLOCSTAMP_TM")->check(CLI::IsMember({"ml_wt", "gl_wt", "serialirr", "lock", "seq"}));
  app.add_option("--out", o.out, "Results folder (default results/runs/<timestamp>)")->envname("ALLOCSTAMP_OUT");
  app.add_option("--timeout", o.timeout_seconds, "Seconds a run may take before it is stopped (more than 0)")
      ->envname("ALLOCSTAMP_TIMEOUT");
  app.add_flag("--no-profile", no_profile, "No profiled runs: the same as --profile-reps 0")
      ->envname("ALLOCSTAMP_NO_PROFILE");
  app.add_option("--profile", o.profile,
                 "What memprof measures in the profiled runs: full (heap, peaks, usable bytes), counts (counts "
                 "and bytes only: much cheaper), none (same as --no-profile)")
      ->envname("ALLOCSTAMP_PROFILE")->check(CLI::IsMember({"full", "counts", "none"}));
  app.add_flag("--series,!--no-series", o.series, "Record memprof's time series into series.csv (default on)")
      ->envname("ALLOCSTAMP_SERIES");
  app.add_option("--callsites", o.callsites,
                 "Sample call sites in the profiled runs, once per N bytes allocated on average (default 512K): "
                 "callsites.csv, callsites/<run_id>.folded, and the report's top sites")
      ->expected(0, 1)->default_str("512K")->envname("ALLOCSTAMP_CALLSITES")
      ->check([](const std::string& v) -> std::string {
        std::size_t digits = 0;
        while (digits < v.size() && std::isdigit(static_cast<unsigned char>(v[digits]))) ++digits;
        bool ok = digits > 0 && (digits == v.size() || (digits + 1 == v.size() && std::string("KkMmGg").find(v[digits]) != std::string::npos));
        return ok && v.find_first_not_of('0') < digits ? "" : "a size in bytes, e.g. 512K or 65536";
      });
  app.add_option("--shard", o.shard,
                 "Run part K of N of the plan (K/N): whole groups of cells per part, for N machines; "
                 "bench merge joins the parts' folders")
      ->envname("ALLOCSTAMP_SHARD");
  app.add_flag("--shuffle", o.shuffle, "Shuffle the order of runs within each repetition")->envname("ALLOCSTAMP_SHUFFLE");
  app.add_option("--seed", o.seed, "Seed for --shuffle and for the workloads' inputs")->envname("ALLOCSTAMP_SEED");
  app.add_option("--preset", o.preset,
                 "A named matrix from workloads/presets.json (see --list); the flags you give narrow or override it")
      ->envname("ALLOCSTAMP_PRESET")->default_str("default");
  app.add_flag("--no-plot", o.no_plot, "Do not draw the figures and the report at the end (bench plot DIR does later)")
      ->envname("ALLOCSTAMP_NO_PLOT");
  app.add_flag("--dry-run", o.dry_run, "Print the runs that would be made, run nothing");
  app.add_flag("--list", list, "List allocators and workloads, installed or not, with versions");
  app.add_flag("--columns", columns, "Print the columns of runs.csv with their meaning (Markdown)");
  app.add_option("--resume", o.resume, "Complete the runs missing from an earlier results folder")
      ->check(CLI::ExistingDirectory);
  app.add_option("--registry", o.registries, "More allocators from a JSON file (shape of allocators/allocators.json)")
      ->envname("ALLOCSTAMP_REGISTRY")->check(CLI::ExistingFile);
  app.add_option("--workloads", o.workload_files, "More workloads from a JSON file (shape of workloads/workloads.json)")
      ->envname("ALLOCSTAMP_WORKLOADS")->check(CLI::ExistingFile);
  CLI::App* summarize = app.add_subcommand("summarize", "Recompute summary.csv of a results folder");
  summarize->add_option("dir", command.dir, "Results folder")->required()->check(CLI::ExistingDirectory);
  CLI::App* plot = app.add_subcommand(
      "plot", "Draw the figures of a results folder (PNG and SVG in DIR/figures/) and write DIR/report.md and report.html");
  plot->add_option("dir", command.dir, "Results folder (default results/latest)");
  plot->footer(
      "Figures, each left out with the reason when its data is missing: time relative to glibc (95% CI) per thread\n"
      "count; speedup, memory ladder, memory over time (series.csv) and allocations/frees by region per workload;\n"
      "abort rate (transactional runs); bytes and time per element (map workloads). Needs gnuplot\n"
      "(apt-get install gnuplot-nox). Exit status: 0 drawn, 1 gnuplot missing or failing, 2 not a results folder.");
  CLI::App* check = app.add_subcommand(
      "check", "Compare two results folders cell by cell: the regression gate (exit 0 pass, 1 regressed, 2 bad input)");
  check->footer(kCheckFooter);
  check->add_option("--baseline", c.baseline, "The known-good results: a folder or its runs.csv")->required();
  check->add_option("--current", c.current, "The results to judge: a folder or its runs.csv")->required();
  check->add_option("--threshold", c.thresholds,
                    "metric=percent, or a group (time, memory, deterministic)=percent; repeat or comma-separate")
      ->delimiter(',');
  check->add_option("--thresholds", c.thresholds_file,
                    "JSON file of thresholds, {\"elapsed_ns\": 10, \"memory\": 8}; --threshold wins")
      ->envname("ALLOCSTAMP_CHECK_THRESHOLDS");
  check->add_option("--alpha", c.alpha,
                    "False-discovery level: a change is significant when its Benjamini-Hochberg q-value is below it")
      ->envname("ALLOCSTAMP_CHECK_ALPHA")->check(CLI::Range(0.0, 1.0));
  check->add_option("--allow-different", c.allow_different,
                    "Compare cells that ran differently in these ways: args, env, library, tm, machine "
                    "(comma-separated); by default such cells are not comparable (exit 2)")
      ->delimiter(',')->check(CLI::IsMember(difference_names()));
  check->add_flag("--deterministic-only", c.deterministic_only,
                  "Compare only the deterministic metrics (counts and requested bytes at 1 thread) and run status")
      ->envname("ALLOCSTAMP_CHECK_DETERMINISTIC_ONLY");
  check->add_flag("--fail-on-missing", c.fail_on_missing, "A cell or metric absent from --current fails the check");
  check->add_flag("--fail-on-change", c.fail_on_change,
                  "A deterministic metric that moved either way fails (fewer allocations too: for a CI gate, "
                  "where an intended change re-records the baseline)");
  check->add_flag("--all", c.all, "Print every row, not only those that are not ok");
  check->add_option("--csv", c.csv, "Also write every row as CSV to this file (-: CSV on stdout instead of the table)");

  CLI::App* merge = app.add_subcommand(
      "merge", "Join the results folders of a sharded sweep (--shard K/N) into one: bench merge OUT PART_DIR...");
  merge->add_option("out", command.merge.out, "The merged folder (new or empty)")->required();
  merge->add_option("parts", command.merge.parts, "The parts' folders")->required()->check(CLI::ExistingDirectory);
  merge->add_flag("--allow-mixed-hosts", command.merge.allow_mixed_hosts,
                  "Merge parts that ran other allocator versions or another CPU model (their times do not compare)");
  SlurmOptions& sl = command.slurm;
  CLI::App* slurm = app.add_subcommand(
      "slurm", "Write (and with --submit, submit) the sweep as a Slurm job array of N parts and a merge job");
  slurm->fallthrough();
  slurm->add_option("--shards", sl.shards, "Parts of the plan, one array task (and node) each")->required()
      ->check(CLI::Range(1, 100000));
  slurm->add_option("--partition", sl.partition, "Slurm partition");
  slurm->add_option("--time", sl.time, "Time limit of each task, as sbatch takes it (e.g. 02:00:00)");
  slurm->add_option("--account", sl.account, "Slurm account");
  slurm->add_flag("--exclusive,!--no-exclusive", sl.exclusive,
                  "Whole nodes for each task (default: a benchmark sharing a node measures its neighbour)");
  slurm->add_flag("--submit", sl.submit, "Run sbatch for both jobs and print their ids");
  slurm->footer("The scripts go to OUT/slurm/ (--out, default results/slurm); parts to OUT/parts/K, the merged "
                "folder to OUT/merged. Every other flag is the sweep's, e.g.\n"
                "  bench slurm --preset=stamp-large --shards 8 --partition=short --time=04:00:00 --submit");
  TraceOptions& tr = command.trace;
  CLI::App* trace = app.add_subcommand(
      "trace", "Record a program's allocation calls once; compute memprof's figures from the trace, or replay it "
               "under any allocator");
  trace->require_subcommand(1);
  trace->fallthrough();
  trace->footer(kTraceFooter);
  CLI::App* trace_stats = trace->add_subcommand("stats", "memprof's figures computed from a trace");
  trace_stats->add_option("file", tr.file, "The trace")->required();
  trace_stats->add_flag("--record", tr.as_record, "Print one @memprof line (memprof's record format) instead of the table");
  CLI::App* trace_replay = trace->add_subcommand(
      "replay", "Replay a trace under the allocators of --alloc, like any workload (results folder, figures, check)");
  trace_replay->fallthrough();
  trace_replay->add_option("file", tr.file, "The trace")->required();
  trace_replay->add_option("--timing", tr.timing, "as-fast-as-possible, or recorded: sleep where the recording was idle")
      ->check(CLI::IsMember({"as-fast-as-possible", "recorded"}));
  trace_replay->add_option("--gap-ms", tr.gap_ms, "With --timing recorded: idle gaps longer than this are slept")
      ->check(CLI::Range(0u, 3600000u));
  trace_replay->add_option("--touch", tr.touch, "ends: write each block's first and last byte; all: every byte")
      ->check(CLI::IsMember({"ends", "all"}));
  CLI::App* trace_record = trace->add_subcommand(
      "record", "Run a program once with memprof and the trace on: bench trace record --trace F -- PROGRAM ARGS");
  trace_record->add_option("--trace", tr.file, "Where the trace goes (default: <program>.astrace here)");
  trace_record->add_flag("--raw", tr.raw, "Keep the trace as memprof writes it (no zstd): 40 bytes per event");
  trace_record->add_option("program", tr.program, "The program and its arguments, after --")->required();

  OverheadOptions& ov = command.overhead;
  CLI::App* overhead = app.add_subcommand(
      "overhead", "What memprof costs: churn timed with and without it under each allocator, interleaved");
  overhead->add_option("--rounds", ov.rounds, "Rounds per allocator, each running every variant once, in rotated "
                       "order; from 9 the median's interval is narrower than the range")->check(CLI::Range(1, 1000))
      ->capture_default_str();
  overhead->add_option("--iterations", ov.iterations, "churn's iterations per thread")->check(CLI::Range(1L, 1L << 40))
      ->capture_default_str();
  overhead->add_option("--use", ov.use, "What churn writes into each new block: all of it, as a program would, or "
                       "its ends only (a bare malloc/free loop, memprof's worst case)")
      ->check(CLI::IsMember({"all", "ends"}))->capture_default_str();
  overhead->add_option("--slots", ov.slots, "Live blocks per thread: 4096 (about 2 MiB a thread) misses the caches, "
                       "256 stays in them")->check(CLI::Range(1, 1 << 24))->capture_default_str();
  overhead->add_option("--threads", ov.threads, "churn's threads")->check(CLI::Range(1, 1024))->capture_default_str();
  overhead->add_option("--alloc", ov.alloc, "Allocators from the registry (default: every installed one)")->delimiter(',');
  overhead->add_option("--modes", ov.modes, "Variants timed against the allocator alone: full (memprof), counts "
                       "(memprof, MEMPROF_HEAP=0), forward (an interposer that only forwards: the floor), atomic "
                       "(malloc_count-style shared counters), sample (full mode sampling call sites every 512K), "
                       "trace (full mode writing MEMPROF_TRACE), baseline (full mode from --baseline DIR)")
      ->delimiter(',')->check(CLI::IsMember({"full", "counts", "forward", "atomic", "sample", "trace", "baseline"}))
      ->capture_default_str();
  overhead->add_option("--baseline", ov.baseline, "Another build folder (an earlier commit's) whose "
                       "lib/libmemprof.so runs in full mode as the variant 'baseline' in every round, and "
                       "full/baseline pairs the two round by round")->check(CLI::ExistingDirectory);
  overhead->add_option("--clock", ov.clock, "wall: wall-clock time; cpu: the child's user + system time (less noisy "
                       "on a busy machine, blind to waiting)")->check(CLI::IsMember({"wall", "cpu"}))->capture_default_str();
  overhead->add_option("--csv", ov.csv, "Also write the rows as CSV to FILE");
  overhead->add_option("--build", ov.build, "Build folder with bin/churn and lib/ (libmemprof.so, "
                       "libforward_only.so, libatomic_counters.so) (default: bench's)")->check(CLI::ExistingDirectory);
  overhead->footer("Prints, per allocator and variant, the median over the rounds of (time with it / time of the "
                   "allocator alone in the same round), with a distribution-free 95% interval for that median "
                   "(the rounds' order statistics). bench's own times never come from memprof; this is the one "
                   "place memprof is timed.\n  bench overhead --alloc=glibc,jemalloc --rounds 15 --use ends");

  // "--alloc=" with nothing after it would take the next word as its value.
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    if (word == "--") break;
    if (word.rfind("--", 0) == 0 && !word.empty() && word.back() == '=')
      throw UsageError(word + " has an empty value", "give a value after '=', or leave the flag out");
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    app.exit(e);
    command.verb = Command::Verb::answered;
    return command;
  } catch (const CLI::CallForVersion& e) {
    app.exit(e);
    command.verb = Command::Verb::answered;
    return command;
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what(), nearest_flag(app, argc, argv) + "see 'bench --help'" +
                                   (command_word(argc, argv).empty() ? "" : " or 'bench " + command_word(argc, argv) + " --help'"));
  }
  for (CLI::App* sub : {trace_stats, trace_replay, trace_record})
    if (sub->parsed()) tr.action = sub->get_name();
  command.verb = overhead->parsed()    ? Command::Verb::overhead
                 : slurm->parsed()     ? Command::Verb::slurm
                 : merge->parsed()     ? Command::Verb::merge
                 : trace->parsed()     ? Command::Verb::trace
                 : check->parsed()     ? Command::Verb::check
                 : plot->parsed()      ? Command::Verb::plot
                 : summarize->parsed() ? Command::Verb::summarize
                 : columns             ? Command::Verb::columns
                 : list                ? Command::Verb::list
                                       : Command::Verb::run;
  for (int i = 0; i < argc; ++i) o.command_line.emplace_back(original_argv[i]);  // as typed
  if (no_profile || o.profile == "none") o.profile = "full", o.profile_reps = 0;
  validate_values(o, c, argc, argv);
  // Flags typed on the command line (ALLOCSTAMP_* variables are ambient, not given).
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    if (word.rfind("--", 0) == 0) o.given.push_back(word.substr(0, word.find('=')));
  }
  // Saved in meta.json for --resume, which may run from another directory.
  auto absolute = [](std::string& path) { path = std::filesystem::absolute(path).string(); };
  for (auto& f : o.registries) absolute(f);
  for (auto& f : o.workload_files) absolute(f);
  for (auto& a : o.allocators)
    if (a.find('/') != std::string::npos) absolute(a);
  std::sort(o.threads.begin(), o.threads.end());
  o.threads.erase(std::unique(o.threads.begin(), o.threads.end()), o.threads.end());
  return command;
}

}  // namespace allocstamp
