// plan.cpp — repetition, then workload, then thread count, then allocator:
// every allocator runs once before any runs again.
#include "plan.h"

#include <algorithm>
#include <random>

namespace allocstamp {

std::string Run::key() const {
  return workload.name + "|" + size + "|" + allocator.name + "|" + tm + "|" + std::to_string(threads) + "|" +
         std::to_string(rep);
}

std::vector<Run> make_plan(const Options& options, const std::vector<Workload>& workloads,
                           const std::vector<Allocator>& allocators) {
  std::vector<Run> plan;
  std::mt19937 shuffler(options.seed);
  for (int rep = 1; rep <= options.reps; ++rep) {
    std::vector<Run> round;
    for (const Workload& w : workloads)
      for (int threads : options.threads)
        for (const Allocator& a : allocators)
          round.push_back(Run{0, w, a, options.size, w.tm ? options.tm : "", threads, rep});
    if (options.shuffle) std::shuffle(round.begin(), round.end(), shuffler);
    plan.insert(plan.end(), round.begin(), round.end());
  }
  for (size_t i = 0; i < plan.size(); ++i) plan[i].id = int(i) + 1;
  return plan;
}

}  // namespace allocstamp
