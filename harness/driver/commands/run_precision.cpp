// run_precision.cpp — the precision rounds of the run verb (run_precision.h).
#include "commands/run_precision.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>

#include "analysis/precision.h"
#include "key_names.h"
#include "meta_names.h"
#include "plan/plan.h"
#include "model/format.h"

namespace allocstamp {

namespace fs = std::filesystem;

ExtraRunIds::ExtraRunIds(int plan_size, const Shard& shard, const RunsTable& recorded)
    : next_(plan_size + (shard.whole() ? 1 : shard.index)), step_(shard.whole() ? 1 : shard.count) {
  int highest = 0;
  for (const CsvRow& row : recorded.rows) highest = std::max(highest, int(recorded.number(row, keys::run_id)));
  while (next_ <= highest) next_ += step_;
}

int ExtraRunIds::next() {
  const int id = next_;
  next_ += step_;
  return id;
}

// --precision, after one workload's planned runs: rounds of one more timed
// repetition (every allocator of a cell group together, interleaved) for each
// of its groups whose time ratios are still wider than ±P% (analysis/precision.h),
// until none is, a group reaches --max-reps, or the sweep has run its share of
// --budget (workloads done so far / all, so the first workloads cannot use up
// the last ones'). Prints what it adds and the groups left short.
void add_rounds_for_precision(const Options& options, const std::vector<Run>& plan, const std::string& workload,
                              double budget_share, const RunsTable& runs, ExtraRunIds& ids,
                              std::chrono::steady_clock::time_point start, Progress& progress,
                              const std::function<bool(const Run&)>& execute, bool& stopped, PrecisionTally& tally) {
  const double target = options.precision / 100.0;
  char target_text[32];
  std::snprintf(target_text, sizeof target_text, "±%g%%", options.precision);
  std::vector<Run> models;  // the workload's first timed round: one run per threads and allocator
  for (const Run& run : plan)
    if (run.kind == RunKind::timed && run.rep == 1 && run.workload.name == workload) models.push_back(run);
  std::map<int, int> next_rep;  // per thread count, the repetition a new round makes
  int rounds = 0;
  std::string stopped_by = "precise";
  std::mt19937 shuffler(options.seed + 1);
  std::vector<GroupPrecision> short_of;
  const double budget = options.budget_minutes * budget_share;
  for (;;) {
    short_of.clear();
    for (const GroupPrecision& g : time_precision(runs))
      if (g.workload == workload && !(g.half_width <= target)) short_of.push_back(g);
    if (short_of.empty()) break;
    std::set<int> grow;
    for (const GroupPrecision& g : short_of) {
      int& rep = next_rep.try_emplace(g.threads, g.last_rep + 1).first->second;
      if (rep <= options.max_reps) grow.insert(g.threads);
    }
    if (grow.empty()) {
      stopped_by = "max_reps";
      break;
    }
    const double minutes = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / 60.0;
    if (options.budget_minutes > 0 && minutes >= budget) {
      stopped_by = "budget";
      break;
    }
    std::vector<Run> round;
    for (int threads : grow) {
      std::vector<Run> first_round;
      for (const Run& model : models)
        if (model.threads == threads) first_round.push_back(model);
      for (Run run : in_round_order(first_round, next_rep[threads])) {
        run.rep = next_rep[threads];
        run.id = ids.next();
        round.push_back(run);
      }
      ++next_rep[threads];
    }
    if (options.shuffle) std::shuffle(round.begin(), round.end(), shuffler);
    const auto widest = std::max_element(short_of.begin(), short_of.end(), [](const auto& a, const auto& b) {
      return a.half_width < b.half_width;
    });
    progress.extend(static_cast<int>(round.size()));
    progress.say("precision: " + std::to_string(short_of.size()) + " cell group(s) of " + workload + " wider than " +
                 target_text + ": one more repetition for " + std::to_string(grow.size()) + " of them, " +
                 std::to_string(round.size()) + " runs");
    progress.say("  widest: " + describe(*widest));
    ++rounds;
    for (const Run& run : round)
      if (!execute(run)) {
        stopped = true;
        stopped_by = "interrupted";
        break;
      }
    if (stopped) break;
  }
  for (const GroupPrecision& g : short_of) {
    tally.short_of.push_back({{meta::short_group_workload, g.workload},
                              {meta::short_group_threads, g.threads},
                              {meta::short_group_reps, g.reps},
                              {meta::short_group_widest, g.widest},
                              {meta::short_group_half_width_pct,
                               std::isinf(g.half_width) ? nlohmann::json(nullptr) : nlohmann::json(g.half_width * 100)}});
  }
  tally.rounds += rounds;
  tally.stopped_by.insert(stopped_by);
  if (short_of.empty()) {
    progress.say("precision: every cell group of " + workload + " within " + std::string(target_text) +
                 " (time ratios, 95% interval), " + std::to_string(rounds) + " round(s) added");
  } else if (!stopped) {
    const std::string limit = stopped_by == "budget" ? "its share of --budget " + number_text("%g", options.budget_minutes) + " min"
                                                     : "--max-reps " + std::to_string(options.max_reps);
    progress.say("precision: " + std::to_string(short_of.size()) + " cell group(s) of " + workload + " short of " +
                 target_text + " when " + limit + " stopped it:");
    for (const GroupPrecision& g : short_of) progress.say("  " + describe(g));
  }
}

// meta.json's record of --precision over the whole sweep: stopped_by is the
// strongest reason any workload stopped for (interrupted, budget, max_reps, precise).
nlohmann::json precision_meta(const Options& options, const PrecisionTally& tally, const nlohmann::json& earlier) {
  int rounds = tally.rounds;
  if (earlier.is_object() && earlier.contains(meta::precision_rounds_added) &&
      earlier[meta::precision_rounds_added].is_number_integer())
    rounds += earlier[meta::precision_rounds_added].get<int>();
  std::string stopped_by = "precise";
  for (const char* reason : {"max_reps", "budget", "interrupted"})
    if (tally.stopped_by.count(reason)) stopped_by = reason;
  return {{meta::precision_target_pct, options.precision},
          {meta::precision_max_reps, options.max_reps},
          {meta::precision_budget_minutes, options.budget_minutes},
          {meta::precision_rounds_added, rounds},
          {meta::precision_stopped_by, stopped_by},
          {meta::precision_short, tally.short_of}};
}

}  // namespace allocstamp
