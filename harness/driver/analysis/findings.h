// findings.h — what a report says first: per workload and thread count, the
// fastest allocator and by how much (the ratio to the reference with its 95%
// interval, claimed only where the interval leaves 1 out), the leanest by RSS,
// and where the allocators cannot be told apart; for each allocator whose time
// separates, the measured mechanisms that separate with it (mechanisms.h).
#pragma once
#include <string>
#include <vector>

#include "analysis/cell_summary.h"

namespace allocstamp {

// One line per workload and thread count, as plain sentences.
std::vector<std::string> findings(const ResultsView& view, const std::vector<CellSummary>& cells);

}  // namespace allocstamp
