// check_types.h — the words bench check's steps share (check.h composes
// them): the configuration, the verdicts and how a row was compared, a row of
// the check and its result.
#pragma once
#include <cmath>
#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "results/cells.h"

namespace allocstamp {

struct CheckConfig {
  // Percent, by metric name or group (time, memory, deterministic, simulated,
  // kernel). A name absent here takes its metric's default, else its group's
  // (a group given here wins over a metric's default); an exact compare stays
  // exact unless its metric or its group `deterministic` is given.
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
  // How many cells have a row not compared because they ran differently (a
  // cell's simulated figures are several rows of one cell).
  std::size_t cells_not_compared() const;
};

}  // namespace allocstamp
