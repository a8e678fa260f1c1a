// failures.h — the runs of a folder that did not end ok, each with why, read
// from runs.csv (its status, exit code, signal and extra's failure): what the
// sweep's last lines and the report list, so a failed run is never only a count.
#pragma once
#include <string>
#include <vector>

#include "results/runs.h"

namespace allocstamp {

struct RunNotOk {
  std::string run;   // "run 3 vacation-high glibc t=1 large ml_wt rep 1 profiled"
  std::string status;
  std::string why;   // "column load_total_byte_ns: ...", "signal 11", "exit status 1 (see its log)", ...
};

// Every run whose status is failed, verify_failed, crashed or timeout, in the
// file's order (skipped runs are not failures: their allocator is missing).
std::vector<RunNotOk> runs_not_ok(const RunsTable& t);

}  // namespace allocstamp
