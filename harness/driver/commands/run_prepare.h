// run_prepare.h — the run verb's first step: everything that can be wrong
// with the command line checked before a results folder exists (a bad
// invocation leaves nothing), the names resolved against the registries, the
// programs' inputs made, the plan and its shard, the simulator found, and
// whether the sweep resumes a folder decided once, as a value the later steps
// read (commands/run.cpp: prepare, open, execute, finish).
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/catalog.h"
#include "model/options.h"
#include "model/run.h"
#include "plan/shards.h"
#include "run/simulation.h"

namespace allocstamp {

struct PreparedSweep {
  Options options;               // as the sweep runs them: a resumed sweep's saved ones
  bool resuming = false;         // --resume: options.resume is the folder
  nlohmann::json saved_meta;     // the resumed folder's meta.json (null for a new sweep)
  std::vector<Allocator> allocators;
  std::vector<Workload> workloads;
  std::vector<Run> plan;         // the runs this sweep (its shard) makes
  nlohmann::json plan_keys;      // the whole plan's keys, also in a shard's folder
  Shard shard;
  bool simulating = false;       // the plan holds simulated runs
  Simulator simulator;           // found when simulating
  nlohmann::json workloads_meta; // what the figures need to know of each workload
};

// The sweep `options` ask for, checked and planned; notes (dropped preset
// arguments, workloads left out) and the inputs made go to `notes`.
// UsageError for anything wrong, before any folder is touched.
PreparedSweep prepare_sweep(Options options, const Paths& paths, std::ostream& notes);

}  // namespace allocstamp
