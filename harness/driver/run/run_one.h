// run_one.h — one planned run made (or skipped, with the reason): its child
// launched with the allocator preloaded (memprof in front for a profiled run,
// valgrind's callgrind around a simulated one), its records read from the
// pipe, and its status decided — an ok exit whose measurement is missing or
// unreadable, or whose program printed another result than its cell's first
// run, is a failed run, with the reason.
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "model/catalog.h"
#include "model/options.h"
#include "model/run.h"
#include "run/environment.h"
#include "run/executor.h"
#include "run/program_result.h"
#include "run/records.h"
#include "run/simulation.h"

namespace allocstamp {

// What a run needs beyond its plan entry: the sweep's options and paths, the
// simulator, the executor, the results folder (call-site files, callgrind's
// output), each allocator's library identity (runs.csv's alloc_library) and
// the program outputs so far (each cell's first digest).
struct RunContext {
  const Options& options;
  const Paths& paths;
  const Simulator& simulator;
  Executor& executor;
  std::filesystem::path dir;
  const std::map<std::string, std::string>& libraries;
  ProgramResults& program_results;
};

// A planned run as it ended, everything its row needs.
struct RunOutcome {
  bool interrupted = false;      // the sweep was interrupted: the run is not recorded (--resume makes it)
  std::string skipped;           // why it was recorded without being made ("" when it was made)
  Status status = Status::failed;
  Finished finished;
  Records records;               // a failed measurement's reason in records.metrics["failure"]
  RunSetting setting;            // what it ran with beyond its plan: arguments, library, the allocator's variables
};

// Why a planned run is recorded skipped without running, or "" when it runs.
std::string skip_reason(const Run& run);

// Makes `run` through the context's executor, or says why it is skipped; its
// log goes to `log_path`, call-site files and callgrind's output under the
// context's folder. A program that printed something else than the first run
// of its cell fails. Says on standard error why a run that exited 0 failed.
RunOutcome run_one(const Run& run, RunContext& context, const std::filesystem::path& log_path);

// Why an ok exit is not an ok run ("" when it is one): ld.so could not preload
// the allocator, memprof never reported, its record is of a format this bench
// does not read, or the records were cut short.
std::string measurement_problem(const Run& run, const Records& records, const std::filesystem::path& log);

}  // namespace allocstamp
