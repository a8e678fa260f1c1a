// plan.h — the experiment matrix as an ordered list of runs, timed, profiled
// and simulated: workload by workload (each answers as soon as its runs are
// done), and within a workload allocators interleaved in each repetition round
// (drift of the machine hits all alike), their order changing from round to
// round (none always first, none always after another), optionally shuffled with a seed; a
// run's key identifies it for --resume.
#pragma once
#include <string>
#include <vector>

#include "model/catalog.h"
#include "model/options.h"
#include "model/run.h"

namespace allocstamp {

// Whether a workload's simulated runs mean anything: not the micro-benchmarks,
// whose iterations depend on the time they take (Google Benchmark).
bool simulable(const Workload& w);

std::vector<Run> make_plan(const Options& options, const std::vector<Workload>& workloads,
                           const std::vector<Allocator>& allocators);

// One thread count's runs of a round, one per allocator in the order of round
// 1, put in the order of round `rep` (a precision round follows the design too).
std::vector<Run> in_round_order(const std::vector<Run>& first_round, int rep);

}  // namespace allocstamp
