// plot.h — the figures of a results folder: prepares their data, has gnuplot
// draw each as PNG and SVG into DIR/figures/, and says which figures were
// drawn and which were skipped, and why (commands/plot.cpp adds the report).
#pragma once
#include <ostream>
#include <vector>

#include "analysis/cell_summary.h"
#include "figures/figure.h"
#include "model/catalog.h"
#include "results/results_view.h"

namespace allocstamp {

struct DrawnFigures {
  FigurePlan plan;  // the figures drawn, and those skipped or failed with the reason
  int failed = 0;   // figures gnuplot failed on
};

// Throws RunError when gnuplot or its scripts are missing, before anything is
// written; then empties DIR/figures and draws every figure that applies,
// printing a line for each.
DrawnFigures draw_figures(const ResultsView& view, const std::vector<CellSummary>& cells, const Paths& paths,
                          std::ostream& out);

}  // namespace allocstamp
