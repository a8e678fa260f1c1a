// run_seconds.h — how long a planned run is expected to take, for the ETA a
// sweep shows from its first run: the seconds runs of the same shape
// (workload, size, kind, threads, allocator) took in a finished sweep on this
// project's 2-core VM, and how long each workload's precision rounds took
// there (workloads/run-seconds.csv, written by scripts/run-seconds).
#pragma once
#include <filesystem>
#include <map>
#include <string>

#include "model/run.h"

namespace allocstamp {

class RunSeconds {
 public:
  // The table in `file`; nothing known when there is no such file (a damaged
  // one is refused, as every CSV bench reads).
  static RunSeconds load(const std::filesystem::path& file);
  // The seconds a run of this shape took; 0 when the table has none.
  double expected(const Run& run) const;
  // The seconds `workload`'s precision rounds took; 0 when none were made or the table has none.
  double rounds(const std::string& workload) const;
  bool empty() const { return runs_.empty(); }

 private:
  std::map<std::string, double> runs_;
  std::map<std::string, double> rounds_;
};

}  // namespace allocstamp
