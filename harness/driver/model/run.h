// run.h — one run of a sweep as the plan makes it and runs.csv records it:
// its workload, allocator, size, TM method, threads, repetition and kind, its
// key (what --resume matches), and the status it ended with.
#pragma once
#include <string>

#include "model/catalog.h"

namespace allocstamp {

// A run's status in runs.csv.
enum class Status { ok, failed, verify_failed, crashed, timeout, skipped };
const char* status_name(Status status);
// False for a word that is not a status.
bool parse_status(const std::string& word, Status& out);

// A timed run preloads the allocator alone (its times are the ones
// published); a profiled run preloads memprof in front of it (its memory
// figures are); a simulated run preloads the allocator alone under valgrind's
// callgrind, counting the measured phase's instructions and simulated cache
// misses (its sim_* figures, and nothing else). Never mixed in one number.
enum class RunKind { timed, profiled, simulated };
const char* kind_name(RunKind kind);
// False for a word that is not a kind.
bool parse_kind(const std::string& word, RunKind& out);

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

// "vacation-high jemalloc t=2 small ml_wt rep 3 profiled": a run as progress and messages name it.
std::string describe(const Run& run);

}  // namespace allocstamp
