// run_one.h — one planned run made: its child launched with the allocator
// preloaded (memprof in front for a profiled run, valgrind's callgrind around a
// simulated one), its records read from the pipe, and its status decided —
// an ok exit whose measurement is missing or unreadable is a failed run, with
// the reason.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "model/catalog.h"
#include "model/options.h"
#include "model/run.h"
#include "run/executor.h"
#include "run/records.h"
#include "run/simulation.h"

namespace allocstamp {

struct RunOutcome {
  bool interrupted = false;      // the sweep was interrupted: the run is not recorded (--resume makes it)
  Status status = Status::failed;
  Finished finished;
  Records records;               // a failed measurement's reason in records.metrics["failure"]
  std::vector<std::string> env;  // the child's environment, as launched
};

// Runs `run` through `executor`; its log goes to `log_path`, call-site files
// and callgrind's output under `dir`. Says on standard error why a run that
// exited 0 failed.
RunOutcome run_one(const Run& run, const Options& options, const Paths& paths, const Simulator& simulator,
                   Executor& executor, const std::filesystem::path& dir, const std::filesystem::path& log_path);

// Why an ok exit is not an ok run ("" when it is one): ld.so could not preload
// the allocator, memprof never reported, its record is of a format this bench
// does not read, or the records were cut short.
std::string measurement_problem(const Run& run, const Records& records, const std::filesystem::path& log);

}  // namespace allocstamp
