// run.cpp — a run's key, and the words runs.csv writes for its status and kind.
#include "model/run.h"

#include <cstdlib>

namespace allocstamp {

std::string Run::key() const {
  return workload.name + "|" + size + "|" + allocator.name + "|" + tm + "|" + std::to_string(threads) + "|" +
         std::to_string(rep) + "|" + kind_name(kind);
}

namespace {
const char* const kStatusNames[] = {"ok", "failed", "verify_failed", "crashed", "timeout", "skipped"};
}  // namespace

const char* status_name(Status status) { return kStatusNames[static_cast<int>(status)]; }

bool parse_status(const std::string& word, Status& out) {
  for (int i = 0; i < 6; ++i)
    if (word == kStatusNames[i]) {
      out = static_cast<Status>(i);
      return true;
    }
  return false;
}

const char* kind_name(RunKind kind) {
  switch (kind) {
    case RunKind::timed: return "timed";
    case RunKind::profiled: return "profiled";
    case RunKind::simulated: return "simulated";
  }
  std::abort();
}

bool parse_kind(const std::string& word, RunKind& out) {
  for (RunKind k : {RunKind::timed, RunKind::profiled, RunKind::simulated})
    if (word == kind_name(k)) {
      out = k;
      return true;
    }
  return false;
}

std::string describe(const Run& run) {
  std::string s = run.workload.name + " " + run.allocator.name + " t=" + std::to_string(run.threads) + " " + run.size;
  if (!run.tm.empty()) s += " " + run.tm;
  return s + " rep " + std::to_string(run.rep) + (run.kind == RunKind::timed ? "" : std::string(" ") + kind_name(run.kind));
}

}  // namespace allocstamp
