// check_pairing.h — bench check's two sides side by side: every cell paired
// with its like, or with the cell of its name that ran differently and how
// (the differences --allow-different names); what a side holds of a cell (its
// runs, values, simulator, micro-benchmarks); and what differs between the
// setups the two folders were measured on (meta.json).
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "analysis/check_types.h"
#include "results/cells.h"
#include "results/micro_results.h"
#include "results/runs.h"

namespace allocstamp {

// What two sides may differ in, by name: args, env, library, tm, machine,
// simulator (valgrind's version, the CPU it shows the program, its caches).
const std::vector<std::string>& difference_names();

// What differs between the setups two results folders were measured on (the
// meta.json next to each runs.csv): allocator versions and the compiler. Empty
// when they agree or either meta.json is missing or unreadable.
std::vector<std::string> setup_differences(const RunsTable& baseline, const RunsTable& current);

// The machines of the two sides when they differ (meta.json's host, CPU and
// cores), as a sentence; "" when they agree or either is unknown.
std::string machine_difference(const RunsTable& baseline, const RunsTable& current);
// "the current runs' meta.json names no machine ..." where a side's machine is
// not known (no meta.json, or none in it): the two are compared as if on one
// machine, and this says so. "" when both are known.
std::string unknown_machine(const RunsTable& baseline, const RunsTable& current);

}  // namespace allocstamp

namespace allocstamp::check_pairing {

// One side of a check: its runs.csv and the cells of its rows.
struct Side {
  const RunsTable* table;
  Cells cells;
};

// Runs of a cell that were not skipped (a cell of none did not run), and those that failed.
std::size_t run_count(const Cell& c);
std::size_t bad_count(const Cell& c);
// The failed runs by status: "2 crashed, 1 timeout"; "" when none failed.
std::string statuses(const Cell& c);

// Numeric values of `column` in the ok runs of a cell that measure it (timed
// runs for times, profiled runs for memprof's figures); empty fields are absent.
std::vector<double> values_of(const Side& side, const Cell& cell, const std::string& column);

// A time of the cell's runs over the reference allocator's in the same
// repetition (same workload, size, arguments, tm and threads), as logs: the
// two ran close together in the interleaved sweep, so the machine's drift and
// load shared by neighbouring runs cancel. Empty when the reference has no
// such run.
std::vector<double> log_ratios_to_reference(const Side& side, const Cell& cell, const std::string& column,
                                            const std::string& reference);

// Most threads memprof saw alive at once in the cell's profiled runs (0 when
// no run says).
double most_threads_alive(const Side& side, const Cell& cell);

// The lowest and the highest value of `column` that any allocator had in the
// side's cells of the same program (its group: workload, size, arguments, TM
// method; and threads). A program's own figure that differs between allocators depends on
// the allocator: libitm's logs grow with the ownership records a transaction
// touches, and where the allocator puts blocks decides how many (two blocks in
// one 32-byte stripe share one), so labyrinth's heap peak under scudo, which
// places blocks at random, takes either of two values from run to run.
std::pair<double, double> allocators_span(const Side& side, const Cell& cell, const std::string& column);

// How a side's simulated runs of a cell were simulated (runs.csv's
// `sim_setup`: each distinct one, sorted, joined by " and "); "" when it has
// no ok simulated run. Compared exactly: a blank setup is "(blank)" and
// matches no other (runs.csv's reader refuses one on an ok simulated run).
std::string simulator_of(const Side& side, const Cell& cell);

// A side's micro-benchmark repetitions by cell and benchmark (timed ok runs only).
using MicroSamples = std::map<std::pair<CellId, std::string>, std::vector<double>>;
MicroSamples micro_by_cell(const Side& side, const std::vector<MicroRow>& rows);

// The cells of the two sides that are compared: the same workload, app, size,
// allocator and threads; `differences` says how else they ran (none: like
// with like).
struct Pair {
  const Cell* base = nullptr;
  const Cell* cur = nullptr;
  std::vector<Difference> differences;
};

// Every cell of either side once: paired with its like first, then with a
// cell of the same name that ran differently, else alone; in cell order.
std::vector<Pair> pair_cells(const Side& base, const Side& cur);

// How a pair ran differently, each difference's text joined by "; " ("" when
// alike), and whether `config` allows every one of them.
struct RanDifferently {
  std::string text;
  bool allowed = true;
};
RanDifferently ran_differently(const Pair& pair, const CheckConfig& config);

// The kernels (and huge-page modes) of the two sides when they differ, as a
// sentence; "" when they agree or either is unknown. Kernel counts depend on it.
std::string kernel_difference(const RunsTable& baseline, const RunsTable& current);

}  // namespace allocstamp::check_pairing
