// shards.h — a plan cut into N disjoint parts for N machines (--shard K/N):
// whole groups of cells (a workload, size, TM method and thread count under
// every allocator) per part, so that a cell's repetitions, timed and
// profiled, and its allocators' runs stay on one node and stay interleaved.
// Parts are balanced by run count (largest group first onto the lightest part).
#pragma once
#include <string>
#include <vector>

#include "model/run.h"

namespace allocstamp {

struct Shard {
  int index = 0, count = 0;  // K and N, 1 <= K <= N; count 0: the whole plan
  bool whole() const { return count == 0; }
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};

// "K/N" → Shard; UsageError on anything else.
Shard parse_shard(const std::string& text);

// The runs of `plan` in part `shard` (their ids stay the full plan's).
std::vector<Run> shard_of(const std::vector<Run>& plan, const Shard& shard);

}  // namespace allocstamp
