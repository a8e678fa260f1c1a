// sweep.h — one bench invocation from validated options to a results folder:
// plan, run each cell in a fresh child, append every row as it ends, then
// summary.csv and the ranking. Exit status: 0 done, 1 some run did not
// succeed, 130 interrupted (resume with --resume).
#pragma once
#include <filesystem>
#include <ostream>

#include "run/executor.h"
#include "cli/options.h"
#include "cli/selection.h"

namespace allocstamp {

// `results_dir`, when given, receives the folder the sweep wrote (empty for --dry-run).
int run_sweep(Options options, const Paths& paths, Executor& executor, std::ostream& out,
              std::filesystem::path* results_dir = nullptr);

}  // namespace allocstamp
