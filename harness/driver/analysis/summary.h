// summary.h — summary.csv, recomputed from runs.csv (bench summarize, bench
// merge, and the end of every sweep).
#pragma once
#include <filesystem>
#include <vector>

#include "analysis/cell_summary.h"
#include "results/results_view.h"

namespace allocstamp {

// Writes summary.csv of the folder `view` reads: per cell and metric n, mean,
// median, stddev, 95% CI over the ok runs, with `summaries`' ratios and
// standings (summarize_cells of the view, family-corrected). Returns the path.
std::filesystem::path write_summary(const ResultsView& view, const std::vector<CellSummary>& summaries);
// The same for the folder `dir`, read here (runs.csv once).
std::filesystem::path write_summary(const std::filesystem::path& dir);
// summary.csv with its header only: a sweep stopped before its first run.
std::filesystem::path write_empty_summary(const std::filesystem::path& dir);

}  // namespace allocstamp
