// ranking.h — the table printed at the end of a sweep (and by `bench
// summarize`): per workload, allocators ranked by time with the ratio to glibc
// and its confidence interval, peak requested heap, peak RSS, PSS; warnings
// when repetitions are too few or runs are outliers.
#pragma once
#include <filesystem>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "analysis/cell_summary.h"
#include "results/results_view.h"

namespace allocstamp {

// `wide`: every column, and each warning with its cells; else 120 columns.
// The tables of the workloads in `printed` are left out (a sweep printed them
// as their runs ended); the bottom line, legends and warnings cover them all.
// per_comparison: uncorrected 95% intervals (--per-comparison), labelled so.
void print_ranking(const std::filesystem::path& results_dir, std::ostream& out, bool wide = false,
                   const std::set<std::string>& printed = {}, bool per_comparison = false);
// The same for a folder already read, its cells summarized (summarize_cells:
// its per_comparison is what the labels say).
void print_ranking(const ResultsView& view, const std::vector<CellSummary>& cells, std::ostream& out, bool wide,
                   const std::set<std::string>& printed);

// The table(s) of one workload alone, as soon as its runs are done.
void print_workload_tables(const ResultsView& view, const std::vector<CellSummary>& cells, const std::string& workload,
                           std::ostream& out, bool wide = false);

}  // namespace allocstamp
