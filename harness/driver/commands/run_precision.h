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
#include "plan/shards.h"
#include "results/runs.h"

namespace allocstamp {

// What --precision did over the sweep's workloads, for meta.json.
struct PrecisionTally {
  int rounds = 0;
  std::set<std::string> stopped_by;  // precise, max_reps, budget, interrupted: one or more per workload
  nlohmann::json short_of = nlohmann::json::array();
};

// The ids of the runs --precision adds: past the whole plan's, in shard K of
// N the ids plan + K, plan + K + N, ... (so that the shards' folders merge),
// each past every id the folder holds already (a resumed sweep's earlier rounds).
class ExtraRunIds {
 public:
  ExtraRunIds(int plan_size, const Shard& shard, const RunsTable& recorded);
  int next();

 private:
  int next_, step_;
};

// --precision, after one workload's planned runs: rounds of one more timed
// repetition (every allocator of a cell group together, interleaved) for each
// of its groups whose time ratios are still wider than ±P% (analysis/precision.h),
// until none is, a group reaches --max-reps, or the sweep has run its share of
// --budget (workloads done so far / all, so the first workloads cannot use up
// the last ones'). `runs` is the sweep's runs.csv as it grows (ResultsFolder::runs).
// Prints what it adds and the groups left short.
void add_rounds_for_precision(const Options& options, const std::vector<Run>& plan, const std::string& workload,
                              double budget_share, const RunsTable& runs, ExtraRunIds& ids,
                              std::chrono::steady_clock::time_point start, Progress& progress,
                              const std::function<bool(const Run&)>& execute, bool& stopped, PrecisionTally& tally);

// meta.json's record of --precision over the whole sweep: stopped_by is the
// strongest reason any workload stopped for (interrupted, budget, max_reps,
// precise) in this session, which judged every workload again; rounds_added
// counts the `earlier` record's rounds too (a resumed sweep's first sessions).
nlohmann::json precision_meta(const Options& options, const PrecisionTally& tally, const nlohmann::json& earlier);

}  // namespace allocstamp
