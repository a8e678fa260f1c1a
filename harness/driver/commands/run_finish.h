// run_finish.h — the run verb's last step: meta.json finished, runs.csv's
// rows (held since they were written) read into one results view and
// summarized once, then summary.csv, the call sites, the figures and report,
// and the ranking with its bottom line, all from that one view.
#pragma once
#include <ostream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "commands/run_precision.h"
#include "commands/run_prepare.h"
#include "results/results_folder.h"

namespace allocstamp {

// What the execute step leaves for the finish.
struct SweepOutcome {
  int finished = 0;                 // runs recorded by this invocation
  bool all_ok = true;               // every one ok
  bool stopped = false;             // interrupted: --resume finishes it
  std::set<std::string> printed;    // workloads whose table came as their runs ended
  PrecisionTally precision;         // what --precision added
};

// Returns the sweep's exit status: 0 all ok, 1 a run or a figure failed, 130 interrupted.
int finish_sweep(const PreparedSweep& sweep, ResultsFolder& folder, nlohmann::json meta, const SweepOutcome& outcome,
                 const Paths& paths, std::ostream& out);

}  // namespace allocstamp
