// run_resume.h — `bench --resume DIR`: the sweep's options as its meta.json
// saved them, trusted no further than a command line is, and its recorded runs
// held against the plan those options make now.
#pragma once
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/options.h"
#include "model/run.h"
#include "results/runs.h"

namespace allocstamp {

// `options` (as typed: --resume DIR and what may go with it) become the saved
// sweep's, with the figures at the end if its preset (in `presets_file`) draws
// them and --no-plot was given neither time; returns the folder's meta.json.
// UsageError for a flag that cannot go with --resume, a damaged or edited
// meta.json, and registry or workload files not named again on the command line.
nlohmann::json resume_options(Options& options, const std::filesystem::path& presets_file);

// UsageError unless the plan the resumed options make is the one meta.json
// recorded (`plan_keys`: the whole plan's keys), in any order.
void check_resumed_plan(const nlohmann::json& saved_meta, const nlohmann::json& plan_keys);

// What a resumed folder's recorded runs (`recorded`, the runs.csv of `dir`)
// leave of the plan, the one answer for --dry-run and the resume itself. A
// run recorded is not made again, but for a failed one with --redo-failed and
// a skipped one whose allocator is installed now: their rows go, and they are
// made in place. UsageError unless each recorded run is the plan's: under its
// id, with its arguments (an edited meta.json).
struct ResumedRuns {
  std::set<std::string> redo;   // failed runs of the plan, made again (--redo-failed)
  std::set<std::string> retry;  // skipped runs of the plan whose allocator is there now
  std::set<std::string> kept;   // the keys of the rows that stay: those runs are not made
};
ResumedRuns resumed_runs(const std::filesystem::path& dir, const RunsTable& recorded, const std::vector<Run>& plan,
                         const Options& options);

}  // namespace allocstamp
