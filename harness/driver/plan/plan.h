// plan.h — the experiment matrix as an ordered list of runs, timed, profiled
// and simulated: workload by workload (each answers as soon as its runs are
// done), and within a workload allocators interleaved in each repetition round
// (drift of the machine hits all alike), optionally shuffled with a seed; a
// run's key identifies it for --resume.
#pragma once
#include <string>
#include <vector>

#include "cli/options.h"
#include "cli/registry.h"
#include "results/runs.h"

namespace allocstamp {

struct Run {
  int id = 0;  // 1-based position in the plan
  Workload workload;
  Allocator allocator;
  std::string size;
  std::string tm;  // "" for workloads that are not transactional
  int threads = 1;
  int rep = 1;  // counted apart for timed, profiled and simulated runs
  RunKind kind = RunKind::timed;
  std::string key() const;
};

// Whether a workload's simulated runs mean anything: not the micro-benchmarks,
// whose iterations depend on the time they take (Google Benchmark).
bool simulable(const Workload& w);

std::vector<Run> make_plan(const Options& options, const std::vector<Workload>& workloads,
                           const std::vector<Allocator>& allocators);

}  // namespace allocstamp
