// figures.h — the data behind `bench plot`: reads a results folder, does every
// statistic here (none in gnuplot), and writes one tidy whitespace-separated
// file per figure under figures/data/ for the scripts in scripts/figures/.
#pragma once
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "runs.h"
#include "statistics.h"

namespace allocstamp {

// One row of runs.csv by column name, with its group: the workload, plus the
// TM method and the size when the folder holds several of them.
struct RunRow {
  std::map<std::string, std::string> values;
  std::string group;
  int threads = 0;
  RunKind kind = RunKind::profiled;
};

struct ResultsView {
  std::filesystem::path dir;
  std::vector<RunRow> runs;
  nlohmann::json meta = nlohmann::json::object();  // empty when meta.json is missing
  std::vector<std::string> groups;      // in order of first appearance
  std::vector<std::string> allocators;  // in order of first appearance
  std::vector<int> threads;             // ascending
  std::string reference;                // glibc when it ran, else the first allocator
  std::vector<std::string> notes;       // problems with the folder that do not stop plotting
};

// Reads runs.csv and meta.json; throws UsageError when the folder is missing or malformed.
ResultsView load_results(const std::filesystem::path& dir);

// A CSV cell as a number; NaN when empty or not all of it is a number.
double parse_number(const std::string& text);
// A numeric column of a row, else the same key in its `extra` column; NaN when neither has a number.
double number(const RunRow& row, const std::string& key);
// A run's time: its measured phase (elapsed_ns), else the whole process's wall time.
double run_time(const RunRow& row);

// "host, CPU, date" from meta.json, for a corner of every figure.
std::string machine_stamp(const nlohmann::json& meta);

// One cell of the matrix: a group, an allocator, a thread count.
struct CellSummary {
  std::string group, allocator;
  int threads = 0;
  std::map<std::string, int> statuses;  // every run of the cell, skipped and failed included
  stats::Summary time;                  // ns over the ok timed runs: elapsed_ns, else wall_ns
  bool time_under_memprof = false;      // the cell had no timed run: its time is the profiled runs'
  int profiled_runs = 0;                // ok profiled runs, whose medians the memory figures are
  stats::Ratio vs_reference;            // mean time / the reference allocator's, same group and threads
  double heap_peak_bytes, rss_kb, pss_kb;  // medians over the ok profiled runs
  double abort_pct = std::numeric_limits<double>::quiet_NaN();   // median abort rate (% of attempts) of transactional runs
  double maxrss_kb = std::numeric_limits<double>::quiet_NaN();   // median peak RSS of the ok timed runs (wait4)
  // Against the reference: "faster" or "slower" only when the ratio's 95%
  // interval leaves 1 out, else "indistinguishable"; "reference", or "" when
  // there is no ratio.
  std::string standing;
};
// In the order groups, then threads, then allocators.
std::vector<CellSummary> summarize_cells(const ResultsView& view);

struct Figure {
  std::string name;    // file stem under figures/: name.png and name.svg
  std::string script;  // scripts/figures/<script>.gp draws it
  std::string title, caption;
  std::string group;   // the one workload group it shows; empty when it spans several
  std::vector<std::pair<std::string, std::string>> vars;  // gnuplot variable, expression
  std::vector<std::string> notes;                         // bars or lines left out, and why
};

struct FigurePlan {
  std::vector<Figure> figures;
  std::vector<std::string> skipped;  // figures not drawn, and why
};

// Writes view.dir/figures/data/<figure>.dat for each figure that has data.
FigurePlan prepare_figures(const ResultsView& view, const std::vector<CellSummary>& cells);

// A gnuplot string literal.
std::string gnuplot_string(const std::string& text);

}  // namespace allocstamp
