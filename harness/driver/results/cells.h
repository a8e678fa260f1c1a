// cells.h — the one place where runs become cells. A cell is the runs that are
// compared with each other: the same workload, app, size and arguments, the
// same allocator with the same library and environment, TM method and thread
// count (the `id` keys of keys.def but run_id, rep and kind). check, summary,
// the terminal table, figures, report and findings all group rows here, take
// a run's time by one rule, and read a cell's values by one rule (timed runs
// for times, profiled runs for memprof's figures).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "results/runs.h"
#include "model/statistics.h"

namespace allocstamp {

struct CellId {
  // args: runs.csv's, less `--threads N` (the cell's threads say it).
  std::string workload, app, size, args, allocator, alloc_library, alloc_env, tm;
  int threads = 0;
  bool operator<(const CellId& other) const;
  bool operator==(const CellId& other) const = default;
};

// "workload:app/size/allocator[/tm]/tN"
std::string cell_label(const CellId& id);

// What differs between two cells of the same workload, app, size, allocator
// and thread count, by name: "args" (what each side has alone, e.g.
// "--transactions 49152 in the baseline only"), "env", "library", "tm".
// `a_side` and `b_side` name the two sides in the text. An empty field on
// either side (a folder older than schema 4) is unknown: not a difference.
struct Difference {
  std::string what;  // args, env, library, tm
  std::string text;
};
std::vector<Difference> differences(const CellId& a, const CellId& b, const std::string& a_side,
                                    const std::string& b_side);

struct Cell {
  CellId id;
  std::string group;                 // its table and figure group: the workload, plus what varies in the folder
  std::string allocator;             // the allocator's name, with " #2" ... when the folder ran it with another library or environment too
  std::vector<const CsvRow*> runs;   // every run of the cell, skipped and failed included
  std::vector<const CsvRow*> ok;     // the ok ones
  std::map<std::string, int> statuses;  // status -> runs
  bool has_timed = false;            // some ok run of the cell is timed
  bool timed = false;                // times come from timed runs: some cell of its group has an ok one
                                     // (a cell without one then has no time; in a group without any,
                                     // times come from the profiled runs, marked as such)
  std::string time_key;              // elapsed_ns, or wall_ns when some ok timed run of its group lacks it
};

// The derived per-run figures of map workloads (summary.csv and the tables):
// requested bytes and RSS added by the fill, per element held.
extern const char* const kRequestedPerElement;  // requested_bytes_per_element
extern const char* const kRssPerElement;        // rss_bytes_per_element

// The time key two cells are compared on: elapsed_ns, or wall_ns when either
// lacks it (a workload that reports no measured phase is timed as a whole).
std::string common_time_key(const Cell& a, const Cell& b);

class Cells {
 public:
  const RunsTable* table = nullptr;
  std::vector<Cell> cells;              // by group (first appearance), threads, allocator (first appearance)
  std::vector<std::string> groups;      // in order of first appearance
  std::vector<std::string> allocators;  // in order of first appearance
  std::vector<int> threads;             // ascending
  std::string reference;                // glibc when it ran, else the first allocator

  // The cell of a group, thread count and allocator; nullptr when none.
  const Cell* find(const std::string& group, int threads, const std::string& allocator) const;
  // The workload a group's cells ran (the group's name less what varies in
  // the folder: size, TM method, arguments); "" for no such group.
  std::string workload_of(const std::string& group) const;
  // The ok runs of the cell that serve `key` (timed runs for times and the
  // workload's metrics, profiled runs for memprof's; profiled runs for all in
  // a group without an ok timed run).
  std::vector<const CsvRow*> serving(const Cell& cell, const std::string& key) const;
  // Their values of `key` (a column, an `extra` key or a derived figure),
  // with the repetition; runs without a value are left out. "time" is the
  // cell's time key.
  std::vector<stats::Sample> samples(const Cell& cell, const std::string& key) const;
  std::vector<double> values(const Cell& cell, const std::string& key) const;
  // One run's value of `key`, derived figures included; NaN when absent.
  double value(const CsvRow& row, const std::string& key) const;
  // The geometric-mean estimate of the cell's values of `key`.
  stats::LogEstimate estimate(const Cell& cell, const std::string& key) const;
  // `cell` over `other`: the one estimator (stats::log_ratio). Times use a
  // key both cells have (wall_ns when either lacks elapsed_ns).
  stats::Ratio ratio(const Cell& cell, const Cell& other, const std::string& key) const;
  // The runs the cell's time comes from (its timed runs; its profiled ones
  // in a folder without timed runs) measured while other processes used the
  // machine (busy_run): a busy profiled or simulated run makes no time suspect.
  int busy_runs(const Cell& cell) const;
};

// Groups the rows of `table` (which must outlive the result) into cells.
Cells cells_of(const RunsTable& table);

// runs.csv's args without their thread count, which is the cell's `threads`:
// runs of one workload at 1 and 2 threads are one group, not two.
std::string args_but_threads(const std::string& args);

}  // namespace allocstamp
