// run_precision.h — `--precision P` of the run verb: after each workload's
// planned runs, rounds of one more timed repetition until its time ratios are
// as precise as asked, and what they did, for meta.json.
#pragma once
#include <chrono>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/options.h"
#include "model/run.h"
#include "output/progress.h"
#include "results/runs.h"

namespace allocstamp {

// What --precision did over the sweep's workloads, for meta.json.
struct PrecisionTally {
  int rounds = 0;
  std::set<std::string> stopped_by;  // precise, max_reps, budget, interrupted: one or more per workload
  nlohmann::json short_of = nlohmann::json::array();
};

// --precision, after one workload's planned runs: rounds of one more timed
// repetition (every allocator of a cell group together, interleaved) for each
// of its groups whose time ratios are still wider than ±P% (analysis/precision.h),
// until none is, a group reaches --max-reps, or the sweep has run its share of
// --budget (workloads done so far / all, so the first workloads cannot use up
// the last ones'). `runs` is the sweep's runs.csv as it grows (ResultsFolder::runs).
// Prints what it adds and the groups left short.
void add_rounds_for_precision(const Options& options, const std::vector<Run>& plan, const std::string& workload,
                              double budget_share, const RunsTable& runs, int& next_id,
                              std::chrono::steady_clock::time_point start, Progress& progress,
                              const std::function<bool(const Run&)>& execute, bool& stopped, PrecisionTally& tally);

// meta.json's record of --precision over the whole sweep: stopped_by is the
// strongest reason any workload stopped for (interrupted, budget, max_reps, precise).
nlohmann::json precision_meta(const Options& options, const PrecisionTally& tally);

}  // namespace allocstamp
