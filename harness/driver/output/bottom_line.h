// bottom_line.h — the answer at the end of a sweep (and of `bench
// summarize`): one table across workloads, a row per workload and thread
// count, a column per allocator holding its time ratio and its peak-RSS ratio
// to the reference ('*' where the 95% interval leaves 1 out), then one
// sentence per row in hyperfine's words ("jemalloc ran 1.23 [1.10, 1.37]
// times faster than glibc").
#pragma once
#include <string>
#include <vector>

#include "analysis/cell_summary.h"
#include "output/document.h"
#include "results/results_view.h"

namespace allocstamp {

Block bottom_line_table(const ResultsView& view, const std::vector<CellSummary>& cells);

// One sentence per row of the table: the fastest and the leanest allocator
// where its interval leaves 1 out, else that none differs from the reference.
std::vector<std::string> bottom_line_answers(const ResultsView& view, const std::vector<CellSummary>& cells);

// What a cell of the table means.
std::string bottom_line_legend(const ResultsView& view);

}  // namespace allocstamp
