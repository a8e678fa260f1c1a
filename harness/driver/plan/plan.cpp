// plan.cpp — repetition round, then workload, then thread count, then kind
// (timed, profiled), then allocator: every allocator runs once in a round
// before any runs again, timed and profiled runs of a round side by side.
#include "plan/plan.h"

#include <algorithm>
#include <random>

namespace allocstamp {

std::string Run::key() const {
  return workload.name + "|" + size + "|" + allocator.name + "|" + tm + "|" + std::to_string(threads) + "|" +
         std::to_string(rep) + "|" + kind_name(kind);
}

bool Options::profiled() const {
  for (int t : threads)
    if (profiled_runs(t) > 0) return true;
  return false;
}

std::vector<Run> make_plan(const Options& options, const std::vector<Workload>& workloads,
                           const std::vector<Allocator>& allocators) {
  std::vector<Run> plan;
  std::mt19937 shuffler(options.seed);
  int rounds = options.reps;
  for (int threads : options.threads) rounds = std::max(rounds, options.profiled_runs(threads));
  for (int rep = 1; rep <= rounds; ++rep) {
    std::vector<Run> round;
    for (const Workload& w : workloads)
      for (int threads : options.threads)
        for (RunKind kind : {RunKind::timed, RunKind::profiled}) {
          if (rep > (kind == RunKind::timed ? options.reps : options.profiled_runs(threads))) continue;
          for (const Allocator& a : allocators)
            round.push_back(Run{0, w, a, options.size_of(w.name), w.tm ? options.tm : "", threads, rep, kind});
        }
    if (options.shuffle) std::shuffle(round.begin(), round.end(), shuffler);
    plan.insert(plan.end(), round.begin(), round.end());
  }
  for (size_t i = 0; i < plan.size(); ++i) plan[i].id = int(i) + 1;
  return plan;
}

}  // namespace allocstamp
