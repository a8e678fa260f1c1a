// plot.h — `bench plot DIR`: prepares the figures' data, has gnuplot draw each
// figure as PNG and SVG into DIR/figures/, writes report.md and report.html,
// and says which figures were drawn and which were skipped, and why.
#pragma once
#include <filesystem>
#include <ostream>

#include "cli/selection.h"

namespace allocstamp {

// Returns 0 when every figure that applies was drawn, 1 when gnuplot failed on
// one. Throws UsageError for a missing or malformed folder and RunError when
// gnuplot is not installed, both before anything is written.
int run_plot(const std::filesystem::path& dir, const Paths& paths, std::ostream& out);

}  // namespace allocstamp
