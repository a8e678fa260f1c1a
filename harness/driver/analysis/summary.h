// summary.h — summary.csv, recomputed from runs.csv (bench summarize, and the
// end of every sweep).
#pragma once
#include <filesystem>

namespace allocstamp {

// Writes summary.csv from runs.csv: per cell and metric n, mean, median,
// stddev, 95% CI over the ok runs. Returns the path.
std::filesystem::path write_summary(const std::filesystem::path& dir);

}  // namespace allocstamp
