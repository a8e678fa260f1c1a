// options.h — everything a bench invocation asks for, after parsing and
// validation; the same struct is saved in meta.json so --resume can replay it.
#pragma once
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace allocstamp {

// The options of a sweep (`bench [flags]`, the default verb).
struct Options {
  std::vector<std::string> allocators;  // names or paths; "all" expanded later
  std::vector<std::string> workloads;   // names; "all" expanded later
  std::vector<int> threads{1};
  std::string size = "small";
  // A preset's per-workload sizes and extra program arguments (by workload name);
  // --size clears them.
  std::map<std::string, std::string> workload_sizes;
  std::map<std::string, std::vector<std::string>> workload_args;
  // The arguments the preset gives with its sizes, which --size dropped (said
  // for the workloads the sweep runs, once they are resolved); not saved.
  std::map<std::string, std::vector<std::string>> dropped_preset_args;
  int reps = 3;                         // timed runs per cell (the allocator alone)
  // --precision P: after `reps`, more interleaved timed rounds for the cell
  // groups whose time ratios' 95% intervals are wider than ±P% (run/precision.h),
  // up to `max_reps` per cell or `budget_minutes` of sweep; 0: off.
  double precision = 0;
  int max_reps = 30;
  double budget_minutes = 0;            // 0: no limit
  int profile_reps = -1;                // profiled runs per cell; -1: 1 at one thread, 3 at more; 0: none
  // --simulate: simulated runs too (the allocator alone under valgrind's
  // callgrind, run/simulation.h), `simulate_reps` per cell (-1: 1 at one
  // thread, where the count is exact, 3 at more), at `simulate_threads`
  // (empty: the sweep's --threads; the ci preset simulates at 2 threads too).
  bool simulate = false;
  int simulate_reps = -1;
  std::vector<int> simulate_threads;
  std::vector<std::string> simulate_workloads;  // empty: every workload of the sweep (but micro)
  std::string tm = "ml_wt";
  std::string out;                      // results folder; empty: results/runs/<timestamp>
  double timeout_seconds = 600;
  std::string profile = "full";         // the profiled runs' mode: full, counts (MEMPROF_HEAP=0)
  bool series = true;
  std::string callsites;                // --callsites[=N]: memprof samples call sites once per N bytes ("" = off)
  bool shuffle = false;
  unsigned seed = 1;
  bool dry_run = false;
  std::string resume;                   // results folder to complete
  bool redo_failed = false;             // with --resume: make the runs that did not end ok again (not saved)
  std::string shard;                    // --shard K/N: this part of the plan only (shards.h); "" = all
  std::vector<std::string> registries;  // more allocator files
  std::vector<std::string> workload_files;
  std::string preset;                   // --preset NAME (presets.h); `bench` alone runs "default"
  bool plot_after = false;              // the preset asks for figures and the report at the end
  bool no_plot = false;                 // --no-plot: not even when the preset asks
  bool wide = false;                    // --wide: the terminal's tables with every column, warnings cell by cell
  bool per_comparison = false;          // --per-comparison: uncorrected 95% intervals and standings, labelled so
  bool own_job = false;                 // a sweep a subcommand sets up whole (trace replay): no preset under it
  std::vector<std::string> command_line;
  std::vector<std::string> given;       // flags typed on the command line

  std::string size_of(const std::string& workload) const {
    auto it = workload_sizes.find(workload);
    return it == workload_sizes.end() ? size : it->second;
  }
  // Profiled runs of a cell at `threads` threads.
  int profiled_runs(int threads) const {
    if (profile == "none") return 0;
    return profile_reps >= 0 ? profile_reps : threads == 1 ? 1 : 3;
  }
  // Some run preloads memprof.
  bool profiled() const;
  // Simulated runs of a cell at `threads` threads.
  int simulated_runs(int threads) const {
    if (!simulate) return 0;
    return simulate_reps >= 0 ? simulate_reps : threads == 1 ? 1 : 3;
  }
  // Whether `workload` gets simulated runs (--simulate-workloads, else all).
  bool simulates(const std::string& workload) const {
    return simulate_workloads.empty() ||
           std::find(simulate_workloads.begin(), simulate_workloads.end(), workload) != simulate_workloads.end();
  }
  // The thread counts of the sweep's simulated runs: --simulate-threads, else --threads.
  const std::vector<int>& simulated_threads() const { return simulate_threads.empty() ? threads : simulate_threads; }
};

// `bench trace stats|replay|record` (commands/trace.cpp).
struct TraceOptions {
  std::string action;                // stats, replay, record
  std::string file;                  // the trace
  bool as_record = false;            // stats: one @memprof line instead of the table
  std::string timing = "as-fast-as-possible";  // replay
  unsigned gap_ms = 1;               // replay --timing recorded
  std::string touch = "ends";        // replay
  std::vector<std::string> program;  // record: the program and its arguments
  bool raw = false;                  // record: keep the trace uncompressed (as memprof writes it)
};

// `bench merge OUT PART...` (commands/merge.cpp).
struct MergeOptions {
  std::string out;
  std::vector<std::string> parts;
  bool allow_mixed_hosts = false;
};

// `bench slurm [sweep flags] --shards N` (commands/slurm.cpp).
struct SlurmOptions {
  int shards = 0;
  std::string partition, time, account;
  bool exclusive = true;
  bool submit = false;
};

// `bench check` (check.h): the regression gate.
struct CheckOptions {
  std::string baseline, current;        // results folders or runs.csv files
  std::vector<std::string> thresholds;  // metric=percent, over the file's
  std::string thresholds_file;          // JSON {"metric": percent}
  double alpha = 0.05;
  bool deterministic_only = false;
  bool fail_on_missing = false;
  bool fail_on_change = false;
  bool fail_on_undecided = false;
  bool trust_busy = false;
  std::vector<std::string> allow_different;  // args, env, library, tm, machine: compared anyway
  bool all = false;                     // print ok rows too
  std::string csv;                      // every row as CSV; "-": stdout
};

// `bench overhead` (commands/overhead.cpp): what memprof costs, churn timed
// with and without it under each allocator, interleaved.
struct OverheadOptions {
  int rounds = 9;
  long iterations = 4000000;
  std::string use = "all";      // churn --use: all (a program's) or ends (a bare malloc/free loop)
  int slots = 4096;
  int threads = 2;
  std::vector<std::string> alloc;  // empty: every installed allocator of the registry
  std::vector<std::string> modes = {"full", "counts", "forward", "atomic"};
  std::string baseline;         // another build folder: its libmemprof.so as the variant "baseline"
  std::vector<std::string> loads = {"idle"};  // idle and/or busy (one core kept busy beside churn)
  std::string clock = "wall";   // wall, or cpu (user + system of the child)
  std::string csv;              // also write the rows as CSV
  std::string build;            // where bin/churn and lib/*.so are (default: bench's build)
};

// What one invocation of bench asks for: a verb and its options.
struct Command {
  enum class Verb { run, plot, check, summarize, list, columns, trace, merge, slurm, overhead, answered };  // answered: --help or --version
  Verb verb = Verb::run;
  Options run;         // run (also what --list reads: registries, workload files)
  CheckOptions check;  // check
  TraceOptions trace;  // trace (its replay also reads `run`)
  MergeOptions merge;  // merge
  SlurmOptions slurm;  // slurm (with the sweep's own options in `run`)
  OverheadOptions overhead;  // overhead (registries from `run`)
  std::string dir;     // plot (empty: results/latest), summarize
};

void to_json(nlohmann::json& j, const Options& o);
void from_json(const nlohmann::json& j, Options& o);

}  // namespace allocstamp
