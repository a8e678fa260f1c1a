// run_resume.h — `bench --resume DIR`: the sweep's options as its meta.json
// saved them, trusted no further than a command line is, and its recorded runs
// held against the plan those options make now.
#pragma once
#include <filesystem>
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

// UsageError unless each run the folder `dir`'s runs.csv (`recorded`, as the
// reopened folder holds it) records is the plan's: under its id, with its arguments.
void check_recorded_runs(const std::filesystem::path& dir, const RunsTable& recorded, const std::vector<Run>& plan,
                         const Options& options);

}  // namespace allocstamp
