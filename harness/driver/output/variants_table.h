// variants_table.h — each allocator variant (BASE:VARIANT) against its base,
// per workload and thread count: the time and peak-RSS ratios with their 95%
// intervals, from the same estimates as the summary table; for the terminal
// after a sweep and for the report.
#pragma once
#include <string>
#include <vector>

#include "analysis/cell_summary.h"
#include "output/document.h"
#include "results/results_view.h"

namespace allocstamp {

// One row per variant cell whose base ran in the same group and thread count;
// no rows (only the header) when there is none.
Block variants_table(const ResultsView& view, const std::vector<CellSummary>& cells);

// What the table says and how to read it, in one paragraph.
std::string variants_table_legend(const std::vector<CellSummary>& cells);

// The variants' findings as a table: a row per variant cell whose time or
// peak-RSS ratio to its base leaves 1 out ("slower 1.08 [1.02, 1.15]"), "-"
// in the column that does not; only the header when none does.
Block variant_changes(const std::vector<CellSummary>& cells);

}  // namespace allocstamp
