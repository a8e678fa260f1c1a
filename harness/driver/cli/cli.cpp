// cli.cpp — what every verb's command line shares (CLI11): the words as a
// shell user types them (trimmed lists, thread ranges), the sweep's flags
// (each with an ALLOCSTAMP_* fallback), help text with examples, and the
// validation that turns every bad value into a UsageError before anything
// runs. Each verb adds its own flags (commands/); commands/command_line.cpp
// puts them together.
#include "cli/cli.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "cli/numbers.h"
#include "model/errors.h"
#include "model/format.h"
#include "cli/spelling.h"
#include "model/version.h"

namespace allocstamp {

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
  bench --resume results/runs/20261121-101500 --redo-failed   ... and make its failed runs again
  bench summarize results/latest                          recompute summary.csv
  bench plot results/latest                               figures/ and report.md, report.html
  bench check --baseline results/base --current results/latest   the regression gate

Each run is a fresh process: LD_PRELOAD=libmemprof.so:<allocator>. Results go to
results/runs/<timestamp>/ (runs.csv, series.csv, scopes.csv, meta.json, summary.csv, logs/),
and results/latest points at the newest. A flag that shapes the sweep also reads an
ALLOCSTAMP_* variable, e.g. ALLOCSTAMP_REPS=10 (the Env: beside it says which); --dry-run,
--list, --columns, --resume and --redo-failed do not.)";

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
void validate_values(const Options& o, int argc, char** argv) {
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

std::vector<std::string> normalized_words(int argc, char** argv) {
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
  return words;
}

void configure_bench_app(CLI::App& app) {
  app.footer(kFooter);
  app.set_version_flag("--version", std::string("allocstamp ") + kVersion);
  app.option_defaults()->always_capture_default();
}

void add_sweep_flags(CLI::App& app, Options& o, SweepFlags& flags) {
  app.add_option("--alloc", o.allocators, "Allocators: names from --list, paths to .so files, or all")
      ->delimiter(',')->envname("ALLOCSTAMP_ALLOC")->default_str("the preset's (default job: all)");
  app.add_option("--workload", o.workloads, "Workloads: names from --list, a family (stamp, intset), a stem (vacation), or all")
      ->delimiter(',')->envname("ALLOCSTAMP_WORKLOAD")->default_str("the preset's (default job: one or more of each family)");
  app.add_option("--threads", o.threads, "Thread counts, e.g. 1,2 or a range 1-4")
      ->delimiter(',')->envname("ALLOCSTAMP_THREADS")->check(whole_number(1, 1024))->default_str("the preset's (default job: 1,2)");
  app.add_option("--size", o.size, "Input size of every workload: tiny (tests), small (STAMP's simulator inputs), medium, large")
      ->envname("ALLOCSTAMP_SIZE")->check(one_of({"tiny", "small", "medium", "large"}))
      ->default_str("the preset's, per workload (default job: each at ~100 ms or more)");
  app.add_option("--reps", o.reps,
                 "Timed runs of every cell: the allocator alone, no memprof (their times are the ones published); "
                 "0: none (a sweep of profiled or simulated runs only)")
      ->envname("ALLOCSTAMP_REPS")->check(whole_number(0, 1000))->default_str("the preset's (default job: 5)");
  app.add_option("--precision", o.precision,
                 "Repeat each cell group's timed runs (all its allocators together, interleaved) until the 95% "
                 "interval of every time ratio to the reference allocator is within ±P percent, from --reps up to "
                 "--max-reps, workload by workload right after its planned runs (its table follows); the groups "
                 "still short are named. 0: off. A preset's precision (the default job: 20) does not apply when "
                 "--reps is given")
      ->envname("ALLOCSTAMP_PRECISION")->check(decimal_number(0.0, 100.0))->default_str("the preset's (default job: 20)");
  app.add_option("--max-reps", o.max_reps, "With --precision: at most this many timed runs per cell")
      ->envname("ALLOCSTAMP_MAX_REPS")->check(whole_number(2, 1000))->default_str("30; the default job: 10");
  app.add_option("--budget", o.budget_minutes,
                 "With --precision: add no repetition round to the k-th of N workloads once the sweep has run k/N "
                 "of this many minutes (each workload its share)")
      ->envname("ALLOCSTAMP_BUDGET")
      ->check(CLI::Validator([](std::string& text) {
                 char* end = nullptr;
                 const double minutes = std::strtod(text.c_str(), &end);
                 return end != text.c_str() && *end == '\0' && minutes > 0 ? std::string()
                                                                           : "a budget is minutes, more than 0: not " + text;
               },
               "MINUTES", "positive minutes"))
      ->default_str("none");
  app.add_option("--profile-reps", o.profile_reps,
                 "Profiled runs of every cell (memprof in front: the memory figures); default 1 at one thread, "
                 "where memprof's counts are exact, and 3 at more; 0: none")
      ->envname("ALLOCSTAMP_PROFILE_REPS")->check(whole_number(0, 1000))->default_str("1 or 3");
  app.add_flag("--simulate,!--no-simulate", o.simulate,
               "Add simulated runs to every cell: the program under valgrind's callgrind with the allocator alone "
               "preloaded, only its measured phase counted (instructions, simulated cache misses, estimated "
               "cycles: the sim_* columns). Exact at one thread, whatever the machine is doing, so bench check "
               "sees changes of well under 1% there; about 50 times slower than a timed run; never a time. "
               "--no-simulate: none, even where the preset asks (the ci preset does)")
      ->envname("ALLOCSTAMP_SIMULATE");
  app.add_option("--simulate-reps", o.simulate_reps,
                 "With --simulate: simulated runs of every cell; default 1 at one thread, 3 at more (where "
                 "transactions' aborts follow the interleaving)")
      ->envname("ALLOCSTAMP_SIMULATE_REPS")->check(whole_number(0, 1000))->default_str("1 or 3");
  app.add_option("--simulate-threads", o.simulate_threads,
                 "With --simulate: the thread counts of the simulated runs, when they differ from --threads "
                 "(e.g. timed and profiled at 1, simulated at 1 and 2)")
      ->delimiter(',')->envname("ALLOCSTAMP_SIMULATE_THREADS")->check(whole_number(1, 1024))->default_str("--threads");
  app.add_option("--simulate-workloads", o.simulate_workloads,
                 "With --simulate: simulate only these of the sweep's workloads (the ci preset leaves out the six "
                 "that take 6-25 s each under valgrind and the two whose threads run side by side at --threads 1)")
      ->delimiter(',')->envname("ALLOCSTAMP_SIMULATE_WORKLOADS")->default_str("all of the sweep's");
  app.add_option("--tm", o.tm, "TM method for transactional workloads: ml_wt, gl_wt, serialirr, lock, seq")
      ->envname("ALLOCSTAMP_TM")->check(one_of({"ml_wt", "gl_wt", "serialirr", "lock", "seq"}));
  app.add_option("--out", o.out, "Results folder (default results/runs/<timestamp>)")->envname("ALLOCSTAMP_OUT");
  app.add_option("--timeout", o.timeout_seconds, "Seconds a run may take before it is stopped (more than 0)")
      ->envname("ALLOCSTAMP_TIMEOUT");
  app.add_flag("--no-profile", flags.no_profile, "No profiled runs: the same as --profile-reps 0")
      ->envname("ALLOCSTAMP_NO_PROFILE");
  app.add_option("--profile", o.profile,
                 "What memprof measures in the profiled runs: full (heap, peaks, usable bytes), counts (counts "
                 "and bytes only: much cheaper), none (same as --no-profile)")
      ->envname("ALLOCSTAMP_PROFILE")->check(one_of({"full", "counts", "none"}));
  app.add_flag("--series,!--no-series", o.series, "Record memprof's time series into series.csv (default on)")
      ->envname("ALLOCSTAMP_SERIES");
  app.add_option("--callsites", o.callsites,
                 "Sample call sites in the profiled runs (off unless given), once per N bytes allocated on average "
                 "(N left out: 512K): "
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
  app.add_flag("--shuffle", o.shuffle, "Shuffle the order of runs within each repetition round of a workload")->envname("ALLOCSTAMP_SHUFFLE");
  app.add_option("--seed", o.seed, "Seed for --shuffle and for the workloads' inputs")->envname("ALLOCSTAMP_SEED");
  app.add_option("--preset", o.preset,
                 "A named matrix from workloads/presets.json (see --list); the flags you give narrow or override it")
      ->envname("ALLOCSTAMP_PRESET")->default_str("default");
  app.add_flag("--per-comparison", o.per_comparison,
               "Show each standing from its comparison's own 95% interval, uncorrected for the number of comparisons (labelled so); by default a folder's time ratios, and its memory ratios, are each corrected as one family (Benjamini-Hochberg, intervals at the false-coverage level)")
      ->envname("ALLOCSTAMP_PER_COMPARISON");
  app.add_flag("--wide", o.wide, "Print the tables (each workload's as it comes, and the bottom line) with every column "
               "(wider than 120 characters) and each warning cell by cell; no line is wrapped at 120 columns")
      ->envname("ALLOCSTAMP_WIDE");
  app.add_flag("--no-plot", o.no_plot, "Do not draw the figures and the report at the end (bench plot DIR does later)")
      ->envname("ALLOCSTAMP_NO_PLOT");
  app.add_flag("--dry-run", o.dry_run, "Print the runs that would be made, run nothing");
  app.add_flag("--list", flags.list, "List allocators and workloads, installed or not, with versions");
  app.add_flag("--columns", flags.columns, "Print the columns of runs.csv with their meaning (Markdown)");
  app.add_option("--resume", o.resume,
                 "Complete the runs missing from an earlier results folder, with the options it saved (only "
                 "--dry-run, --redo-failed, --no-plot, --wide, --per-comparison and the sweep's own --registry and "
                 "--workloads files go with it)")
      ->check(CLI::ExistingDirectory);
  app.add_flag("--redo-failed", o.redo_failed,
               "With --resume: make again the planned runs that did not end ok (failed, crashed, timeout, "
               "verify_failed); their rows are removed first");
  app.add_option("--registry", o.registries, "More allocators from a JSON file (shape of allocators/allocators.json)")
      ->envname("ALLOCSTAMP_REGISTRY")->check(CLI::ExistingFile);
  app.add_option("--workloads", o.workload_files, "More workloads from a JSON file (shape of workloads/workloads.json)")
      ->envname("ALLOCSTAMP_WORKLOADS")->check(CLI::ExistingFile);
}

bool parse_words(CLI::App& app, int argc, char** argv) {
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
    return false;
  } catch (const CLI::CallForVersion& e) {
    app.exit(e);
    return false;
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what(), nearest_flag(app, argc, argv) + "see 'bench --help'" +
                                   (command_word(argc, argv).empty() ? "" : " or 'bench " + command_word(argc, argv) + " --help'"));
  }
  return true;
}

void finish_sweep_options(Options& o, const SweepFlags& flags, int argc, char** argv, char** typed_argv) {
  for (int i = 0; i < argc; ++i) o.command_line.emplace_back(typed_argv[i]);  // as typed
  // Flags typed on the command line (ALLOCSTAMP_* variables are ambient, not given).
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    if (word.rfind("--", 0) == 0) o.given.push_back(word.substr(0, word.find('=')));
  }
  if (flags.no_profile || o.profile == "none") {
    // Two typed flags that disagree: said, not settled silently (no profiled
    // runs were made). An ALLOCSTAMP_PROFILE_REPS of the shell is ambient: the typed flag wins.
    const bool reps_given = std::find(o.given.begin(), o.given.end(), "--profile-reps") != o.given.end();
    if (reps_given && o.profile_reps > 0)
      throw UsageError(std::string(flags.no_profile ? "--no-profile" : "--profile=none") + " and --profile-reps " +
                           std::to_string(o.profile_reps) + " disagree: no profiled run, or " +
                           std::to_string(o.profile_reps) + " a cell",
                       "give one of them");
    o.profile = "full", o.profile_reps = 0;
  }
  validate_values(o, argc, argv);
  // Saved in meta.json for --resume, which may run from another directory.
  auto absolute = [](std::string& path) { path = std::filesystem::absolute(path).string(); };
  for (auto& f : o.registries) absolute(f);
  for (auto& f : o.workload_files) absolute(f);
  for (auto& a : o.allocators)  // a path; not a variant's value (ALLOCATOR:VARIABLE=VALUE)
    if (a.find('/') != std::string::npos && !(a.find(':') < a.find('=') && a.find(':') < a.find('/'))) absolute(a);
  std::sort(o.threads.begin(), o.threads.end());
  o.threads.erase(std::unique(o.threads.begin(), o.threads.end()), o.threads.end());
  std::sort(o.simulate_threads.begin(), o.simulate_threads.end());
  o.simulate_threads.erase(std::unique(o.simulate_threads.begin(), o.simulate_threads.end()), o.simulate_threads.end());
}

}  // namespace allocstamp
