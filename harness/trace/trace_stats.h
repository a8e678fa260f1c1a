// trace_stats.h — memprof's figures computed from a trace after the fact (what
// mma's mmoa does for mmprof's log): counts and bytes by region, the size
// histograms, the requested peak and end, live blocks, the measured phase's
// end, the load and the duration — under memprof's own key names, so that
// they can be set beside memprof's live record of the same run.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "trace_reader.h"

namespace allocstamp::trace {

// (key, value) in the order of harness/contract/keys.def.
using Figures = std::vector<std::pair<std::string, uint64_t>>;

Figures compute_figures(const Trace& trace);

// The keys compute_figures gives that memprof's live record gives exactly the
// same for the same run (the others — load, duration, threads — are measured).
bool is_exact_figure(const std::string& key);

}  // namespace allocstamp::trace
