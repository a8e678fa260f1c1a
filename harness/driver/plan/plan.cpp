// plan.cpp — workload, then repetition round, then thread count, then kind
// (timed, profiled, simulated), then allocator: a workload's runs all come
// together (its table can be printed as soon as they are done), and within
// them every allocator runs once in a round before any runs again, timed and
// profiled runs of a round side by side, the allocators' order changing from
// round to round (a Williams design: none always first, none always right
// after another).
#include "plan/plan.h"

#include <algorithm>
#include <random>

namespace allocstamp {

bool simulable(const Workload& w) { return w.family != "micro"; }

namespace {

// The allocators' order in round `rep` (1-based), as indices: the rows of a
// Williams design, so that over n rounds (2n for an odd n) each allocator runs
// first once (after a change of thread count or kind) and right after each
// other allocator once. Measured 2026-12-06: in the fixed order a twin of
// jemalloc, always run right after it, took 1.9 times its time at 2 threads,
// repetition after repetition, in 1 of 10 sweeps; run in the other order
// alone, the same time as jemalloc.
std::vector<std::size_t> round_order(std::size_t n, int rep) {
  std::vector<std::size_t> first_row;  // 0, 1, n-1, 2, n-2, ...
  for (std::size_t k = 0, low = 1, high = n - 1; k < n; ++k) first_row.push_back(k == 0 ? 0 : k % 2 ? low++ : high--);
  const std::size_t rows = n % 2 ? 2 * n : n;
  const std::size_t row = std::size_t(rep - 1) % std::max<std::size_t>(rows, 1);
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < n; ++k) order.push_back((first_row[k] + row) % n);
  if (row >= n) std::reverse(order.begin(), order.end());  // an odd n: the rows again, backwards
  return order;
}

}  // namespace

std::vector<Run> in_round_order(const std::vector<Run>& first_round, int rep) {
  const std::size_t n = first_round.size();
  const std::vector<std::size_t> first = round_order(n, 1);
  std::vector<const Run*> of_allocator(n);
  for (std::size_t k = 0; k < n; ++k) of_allocator[first[k]] = &first_round[k];
  std::vector<Run> ordered;
  for (std::size_t i : round_order(n, rep)) ordered.push_back(*of_allocator[i]);
  return ordered;
}

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
          for (std::size_t i : round_order(allocators.size(), rep)) {
            const Allocator& a = allocators[i];
            round.push_back(Run{0, w, a, options.size_of(w.name), w.tm ? options.tm : "", threads, rep, kind});
          }
        }
      if (options.shuffle) std::shuffle(round.begin(), round.end(), shuffler);
      plan.insert(plan.end(), round.begin(), round.end());
    }
  for (size_t i = 0; i < plan.size(); ++i) plan[i].id = int(i) + 1;
  return plan;
}

}  // namespace allocstamp
