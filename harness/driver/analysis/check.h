// check.h — `bench check`, the regression gate: two runs.csv tables in, one
// verdict per cell and metric out. Deterministic metrics compare exactly, measured
// ones by threshold and Welch's t on log values (check_measured.h), so noise alone fails nothing.
#pragma once
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "results/cells.h"
#include "results/micro_results.h"
#include "results/runs.h"

namespace allocstamp {

struct CheckConfig {
  // Percent, by metric name or group (time, memory, count). A name absent here
  // takes the default of its group; an exact compare stays exact unless its
  // metric or `count` is given.
  std::map<std::string, double> thresholds;
  double alpha = 0.05;
  bool deterministic_only = false;  // compare no measured metric
  bool fail_on_missing = false;     // a cell absent from the current side fails
  bool fail_on_change = false;      // an exact compare that moved either way fails (a CI gate)
  bool fail_on_undecided = false;   // a time whose detectable change is above its threshold fails
  bool trust_busy = false;          // a time measured on a busy machine may regress (else it is suspect)
  // Differences in how two cells ran that the user allows by name
  // (difference_names()); any other makes the cell not comparable.
  std::set<std::string> allow_different;
};

// What two sides may differ in, by name: args, env, library, tm, machine,
// simulator (valgrind's version, the CPU it shows the program, its caches).
const std::vector<std::string>& difference_names();

// Adds "metric=pct" to `thresholds`; throws UsageError for an unknown metric or
// group, or a value that is not a number >= 0.
void add_threshold(const std::string& assignment, std::map<std::string, double>& thresholds);
// A JSON object {"elapsed_ns": 10, "memory": 8, ...}; entries already in
// `thresholds` (from the command line) win. Throws UsageError when unusable.
void add_thresholds_file(const std::filesystem::path& file, std::map<std::string, double>& thresholds);

// not_comparable: the two cells ran differently (arguments, environment,
// allocator library, TM method): listed, never compared. undecided: a time
// whose repetitions could not have shown a change of its threshold (the
// smallest change they detect, `detectable`, is above it): neither ok nor
// regressed. suspect: a time that moved beyond its threshold while either
// side ran on a busy machine (other processes took the CPU): not a failure
// unless --trust-busy. unrepeatable: a count (a sum over threads) at one
// thread whose baseline repetitions differ: it must repeat exactly, so the
// baseline cannot hold it and the check fails until it is re-recorded or the
// cause found (a peak that races is compared as measured instead, and named).
enum class Verdict { ok, regressed, improved, noisy, undecided, suspect, missing, failed, not_comparable, unrepeatable };
const char* verdict_name(Verdict v);

// How a row was compared: the runs' status, a cell on one side only, an exact
// value, a deterministic figure against the range the baseline's allocators
// span (when they disagree on it: it depends on the allocator), medians
// with the U-test, a simulated figure's medians against its repeatability, or
// a kernel count's (minor faults, the allocator's kernel calls) likewise.
enum class Comparison { status, cell, exact, range, measured, simulated, kernel };

struct CheckRow {
  CellId cell;                // the current side's (the baseline's where the cell is only there)
  std::string metric;         // a metric; "status" or "cell" for those comparisons
  Comparison how = Comparison::cell;
  std::size_t n_base = 0, n_cur = 0;  // values compared (status: runs that were not skipped)
  // What change says: exact values, or the one estimate (check_measured::center:
  // the geometric mean); status: ok runs. NaN when absent. With `relative`,
  // each side's time over the reference allocator's, rep by rep; the current
  // side with the sweep-wide drift taken out where a note says so.
  double base = NAN, cur = NAN;
  double change = NAN;        // cur / base - 1; NaN when not computed
  double p = NAN;             // measured: the test's p-value (Welch's t on logs, else the U-test); NaN when not tested
  double q = NAN;             // p adjusted by Benjamini–Hochberg over every measured comparison of the check
  double threshold = 0;       // percent applied
  // Times: the smallest slowdown (relative, 0.05 = 5%) this comparison detects
  // with probability 0.8 at its repetitions and spread, at the level a single
  // change needs after the correction over the check's times (alpha / their
  // number); +inf when it cannot be tested. Simulated figures: the smallest
  // change flagged (the allowance for their repeatability). NaN for other rows.
  double detectable = NAN;
  Verdict verdict = Verdict::ok;
  bool busy = false;          // a time either side measured on a busy machine
  std::string note;           // why, when it is not obvious
  std::string relative;       // "" or the reference allocator the base and cur values are ratios to
};

struct CheckResult {
  std::vector<CheckRow> rows;             // by cell, then metric in runs.csv's order
  std::vector<std::string> warnings;      // too few repetitions, metrics on one side only, ...
  std::vector<std::string> notes;         // what was left out on purpose
  std::size_t cells_compared = 0;         // in both sides, run alike (or with an allowed difference)
  // Why kernel counts were not compared at all ("" when they were, or none
  // exist): the two sides ran on another kernel or huge-page mode.
  std::string kernel_not_compared;
  // Cells that ran differently and were not compared: difference name -> what differed, per cell.
  std::map<std::string, std::vector<std::string>> not_comparable;
  // Deterministic figures compared as measured (or, --deterministic-only, not
  // compared) because the baseline's repetitions differ: "workload metric" -> cells.
  std::map<std::string, int> unrepeatable_in_baseline;
  // Any failed or regressed row; missing ones and exact compares that improved
  // too when the config asks.
  bool failed(const CheckConfig& config) const;
};

// What differs between the setups two results folders were measured on (the
// meta.json next to each runs.csv): allocator versions and the compiler. Empty
// when they agree or either meta.json is missing or unreadable.
std::vector<std::string> setup_differences(const RunsTable& baseline, const RunsTable& current);

// The machines of the two sides when they differ (meta.json's host, CPU and
// cores), as a sentence; "" when they agree or either is unknown.
std::string machine_difference(const RunsTable& baseline, const RunsTable& current);

// Compares `current` with `baseline` cell by cell: a cell with its like (the
// same identity, cells.h), or one that ran differently listed as not
// comparable unless `config` allows the difference. Throws UsageError when no
// cell is on both sides or a compared value is not a number.
// With the micro-benchmarks' rows of both sides (micro.csv), each benchmark of
// a cell is compared too (metric "ns_per_op:<benchmark>": the timed runs'
// repetitions, median and U-test, under the time threshold; a benchmark on
// one side only is missing).
CheckResult compare_runs(const RunsTable& baseline, const RunsTable& current, const CheckConfig& config,
                         const std::vector<MicroRow>& baseline_micro = {}, const std::vector<MicroRow>& current_micro = {});

}  // namespace allocstamp
