// plan.cpp — workload, then repetition round, then thread count, then kind
// (timed, profiled, simulated), then allocator: a workload's runs all come
// together (its table can be printed as soon as they are done), and within
// them every allocator runs once in a round before any runs again, timed and
// profiled runs of a round side by side.
#include "plan/plan.h"

#include <algorithm>
#include <random>

namespace allocstamp {

bool simulable(const Workload& w) { return w.family != "micro"; }

std::vector<Run> make_plan(const Options& options, const std::vector<Workload>& workloads,
                           const std::vector<Allocator>& allocators) {
  std::vector<Run> plan;
  std::mt19937 shuffler(options.seed);
  int rounds = options.reps;
  std::vector<int> all_threads = options.threads;
  for (int threads : options.simulated_threads())
    if (std::find(all_threads.begin(), all_threads.end(), threads) == all_threads.end()) all_threads.push_back(threads);
  std::sort(all_threads.begin(), all_threads.end());
  auto runs_of = [&](RunKind kind, int threads) {
    const bool in_sweep = std::find(options.threads.begin(), options.threads.end(), threads) != options.threads.end();
    const auto& sim = options.simulated_threads();
    switch (kind) {
      case RunKind::timed: return in_sweep ? options.reps : 0;
      case RunKind::profiled: return in_sweep ? options.profiled_runs(threads) : 0;
      case RunKind::simulated:
        return std::find(sim.begin(), sim.end(), threads) != sim.end() ? options.simulated_runs(threads) : 0;
    }
    return 0;
  };
  for (int threads : all_threads)
    for (RunKind kind : {RunKind::profiled, RunKind::simulated}) rounds = std::max(rounds, runs_of(kind, threads));
  for (const Workload& w : workloads)
    for (int rep = 1; rep <= rounds; ++rep) {
      std::vector<Run> round;
      for (int threads : all_threads)
        for (RunKind kind : {RunKind::timed, RunKind::profiled, RunKind::simulated}) {
          if (rep > runs_of(kind, threads)) continue;
          // A one-thread program runs at 1 thread only (commands/run.cpp leaves it out of a sweep without 1).
          if (w.single_thread && threads != 1) continue;
          if (kind == RunKind::simulated && (!simulable(w) || !options.simulates(w.name))) continue;
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
