// summary_table.h — the per-cell table a person reads first, one per workload:
// the same Block for the terminal (after a sweep, `bench summarize`) and for
// the report, so both name the same statistic the same way. Times come from
// the timed runs, memory from the profiled runs (RSS from the timed runs'
// wait4 peak where no profiled run measured it).
#pragma once
#include <string>
#include <vector>

#include "analysis/cell_summary.h"
#include "output/document.h"
#include "results/results_view.h"

namespace allocstamp {

// The rows of `cells` whose group is `group`, by thread count then time.
// `wide`: every column (the report, bench --wide); else the terminal's 120
// columns: the estimates without their intervals, the ratios with them.
// `provisional`: a table printed while the sweep goes on (a workload's, as
// soon as its runs are done): each ratio without its interval or standing,
// which depend on every comparison of the sweep (their family's level), so
// that the value shown is the one the bottom line and the report give.
Block summary_table(const ResultsView& view, const std::vector<CellSummary>& cells, const std::string& group,
                    bool wide = true, bool provisional = false);

// What the table's columns mean, in one paragraph.
std::string summary_table_legend(const ResultsView& view, const std::vector<CellSummary>& cells);

}  // namespace allocstamp
