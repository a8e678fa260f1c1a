// report.h — report.md and report.html of a results folder: the setup from
// meta.json, the summary of every cell, and every figure with a caption on how
// to read it. Both files render one document, so they always agree.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/cell_summary.h"
#include "figures/figure.h"
#include "output/document.h"
#include "results/results_view.h"

namespace allocstamp {


Document build_report(const ResultsView& view, const std::vector<CellSummary>& cells, const FigurePlan& plan);

// Writes view.dir/report.md and view.dir/report.html.
void write_report(const ResultsView& view, const std::vector<CellSummary>& cells, const FigurePlan& plan);

}  // namespace allocstamp
