// micro_results.h — micro.csv, the micro-benchmarks' repetitions (one row per
// @micro record of a run), read by one reader for the figures and bench check.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "model/run.h"

namespace allocstamp {

struct MicroRow {
  long run_id = 0;
  RunKind kind = RunKind::timed;
  std::string benchmark;  // e.g. malloc_free/64
  long size_bytes = 0;
  long threads = 1;
  long repetition = 0;
  long iterations = 0;
  double real_ns_per_op = 0, cpu_ns_per_op = 0, items_per_s = 0;
};

// The rows of DIR/micro.csv (DIR a results folder, or the runs.csv beside it);
// none when the folder has no micro.csv. UsageError for a damaged file.
std::vector<MicroRow> load_micro(const std::filesystem::path& path);

}  // namespace allocstamp
