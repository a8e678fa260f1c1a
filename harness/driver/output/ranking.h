// ranking.h — the table printed at the end of a sweep (and by `bench
// summarize`): per workload, allocators ranked by time with the ratio to glibc
// and its confidence interval, peak requested heap, peak RSS, PSS; warnings
// when repetitions are too few or runs are outliers.
#pragma once
#include <filesystem>
#include <ostream>

namespace allocstamp {

// `wide`: every column, and each warning with its cells; else 120 columns.
void print_ranking(const std::filesystem::path& results_dir, std::ostream& out, bool wide = false);

}  // namespace allocstamp
