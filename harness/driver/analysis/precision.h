// precision.h — how precise a sweep's times are yet, for `bench --precision P`:
// a cell group (a workload at a thread count, every allocator of it) is
// precise when the 95% interval of each allocator's time ratio to the
// reference allocator (paired by repetition: stats::log_ratio) lies within
// ±P% of the ratio; a group with one allocator, when its own time's interval
// does. The sweep adds interleaved repetitions to the groups that are not yet.
#pragma once
#include <string>
#include <vector>

#include "results/runs.h"

namespace allocstamp {

struct GroupPrecision {
  std::string workload;   // runs.csv's workload
  int threads = 0;
  int reps = 0;           // the fewest ok timed repetitions among its allocators
  int last_rep = 0;       // the highest repetition number among its timed runs
  double half_width = 0;  // the widest half interval, relative (0.05: ±5%); +inf when one cannot be computed
  std::string widest;     // the allocator whose interval that is ("name/reference", or the name alone)
};

// Every cell group with timed runs in `table` (a sweep's runs.csv), in its order.
std::vector<GroupPrecision> time_precision(const RunsTable& table);

// "vacation-low t1: ±7.9% (jemalloc/glibc, 12 reps)"
std::string describe(const GroupPrecision& g);

}  // namespace allocstamp
