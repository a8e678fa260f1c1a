// run_prepare.cpp — the run verb's first step (run_prepare.h): options checked,
// names resolved, inputs made, the plan made and cut to its shard.
#include "commands/run_prepare.h"

#include <algorithm>
#include <filesystem>

#include "cli/registry.h"
#include "cli/selection.h"
#include "commands/run_resume.h"
#include "meta_names.h"
#include "model/errors.h"
#include "model/shell_words.h"
#include "plan/plan.h"
#include "run/inputs.h"

namespace allocstamp {

namespace fs = std::filesystem;

namespace {

// What the flags ask for that cannot be: said before anything is read.
void refuse_impossible_options(const Options& options) {
  // (A preset may bring the simulated runs: checked once it is applied.)
  if (options.reps == 0 && options.profile_reps == 0 && !options.simulate)
    throw UsageError("--reps 0 with no profiled or simulated runs leaves nothing to run",
                     "give --reps 1 or more, or keep the profiled runs, or add --simulate");
  if (options.reps == 0 && options.precision > 0)
    throw UsageError("--precision adds timed rounds, but --reps 0 makes no timed run", "leave out one of them");
  auto typed = [&](const char* flag) { return std::count(options.given.begin(), options.given.end(), flag) > 0; };
  if (options.precision <= 0 && (typed("--max-reps") || typed("--budget")))
    throw UsageError("--max-reps and --budget bound --precision, which is not set",
                     "add --precision P (percent, e.g. --precision 5), or leave them out");
  for (const char* flag : {"--simulate-reps", "--simulate-threads", "--simulate-workloads"})
    if (!options.simulate && typed(flag))
      throw UsageError(std::string(flag) + " shapes the simulated runs, but the sweep makes none",
                       "add --simulate, or leave out " + std::string(flag));
  if (!options.callsites.empty() && options.callsites != "0" && typed("--callsites") && !options.profiled())
    throw UsageError("--callsites samples the profiled runs, but the sweep makes none (--no-profile, --profile-reps 0)",
                     "keep the profiled runs, or leave out --callsites");
  if (options.precision > 0 && options.max_reps < options.reps)
    throw UsageError("--max-reps " + std::to_string(options.max_reps) + " is below --reps " + std::to_string(options.reps),
                     "give --max-reps at least the repetitions the sweep starts with");
}

// --size with a preset drops the arguments the preset gives with its sizes:
// said for the workloads the sweep runs, however they were named.
void say_dropped_preset_arguments(const Options& options, const std::vector<Workload>& workloads, std::ostream& notes) {
  std::string dropped;
  for (const Workload& w : workloads)
    if (auto it = options.dropped_preset_args.find(w.name); it != options.dropped_preset_args.end())
      dropped += "\n  " + w.name + " " + shell_line(it->second);
  if (!dropped.empty())
    notes << "note: --size " << options.size << " replaces preset " << options.preset
          << "'s sizes and drops the arguments it gives with them:" << dropped << "\n";
}

// A one-thread program has nothing to run in a sweep without 1 thread: said, and left out.
void leave_out_one_thread_programs(const Options& options, std::vector<Workload>& workloads, std::ostream& notes) {
  if (std::find(options.threads.begin(), options.threads.end(), 1) != options.threads.end()) return;
  std::vector<std::string> left;
  for (const Workload& w : workloads)
    if (w.single_thread) left.push_back(w.name);
  if (!left.empty() && left.size() == workloads.size())
    throw UsageError("every workload chosen runs at one thread only, and --threads leaves 1 out", "add 1 to --threads");
  if (left.empty()) return;
  std::string names;
  for (const std::string& name : left) names += (names.empty() ? "" : ", ") + name;
  notes << "note: " << names << " run at one thread only, and --threads leaves 1 out: left out of this sweep\n";
  workloads.erase(std::remove_if(workloads.begin(), workloads.end(), [](const Workload& w) { return w.single_thread; }),
                  workloads.end());
}

// Someone else's program: at a size its entry has, with its generated input
// made now (not while a run is timed; a dry run only names it).
void make_program_inputs(const Options& options, std::vector<Workload>& workloads, const Paths& paths,
                         std::ostream& notes) {
  for (Workload& w : workloads) {
    const std::string size = options.size_of(w.name);
    if (!w.size_args.empty() && !w.size_args.count(size)) {
      std::string sizes;
      for (const auto& [name, args] : w.size_args) sizes += (sizes.empty() ? "" : ", ") + name;
      throw UsageError("the workload '" + w.name + "' has no size '" + size + "'", "use --size " + sizes);
    }
    if (options.dry_run && !w.input_generator.empty()) w.inputs[size] = input_path(w, size, options.seed, paths);
  }
  if (!options.dry_run)
    prepare_inputs(workloads, [&](const std::string& w) { return options.size_of(w); }, options.seed, paths, notes);
}

}  // namespace

PreparedSweep prepare_sweep(Options options, const Paths& paths, std::ostream& notes) {
  PreparedSweep sweep;
  sweep.resuming = !options.resume.empty();
  if (options.redo_failed && !sweep.resuming)
    throw UsageError("--redo-failed makes a sweep's failed runs again, and goes with --resume",
                     "give --resume DIR --redo-failed, DIR the sweep's results folder");
  if (sweep.resuming) sweep.saved_meta = resume_options(options, paths.source / "workloads" / "presets.json");
  refuse_impossible_options(options);
  Catalog catalog = load_catalog(options, paths);
  sweep.allocators = select_allocators(options, catalog);
  sweep.workloads = select_workloads(options, catalog, paths);
  say_dropped_preset_arguments(options, sweep.workloads, notes);
  if (options.profiled() && !fs::exists(paths.memprof))
    throw UsageError("libmemprof.so is not built (" + paths.memprof.string() + ")", "run 'make build'");
  // A known workload the sweep does not run is simply not simulated (a preset
  // narrowed by --workload); a name no registry knows is a mistake.
  for (const std::string& name : options.simulate_workloads)
    if (std::none_of(catalog.workloads.begin(), catalog.workloads.end(), [&](const Workload& w) { return w.name == name; }))
      throw UsageError("--simulate-workloads names '" + name + "', which is not a workload",
                       "name workloads from bench --list");
  // Typed, they are the user's word: those the sweep does not run are said,
  // and none of them run is refused (it simulated nothing, silently).
  if (options.simulate && std::find(options.given.begin(), options.given.end(), "--simulate-workloads") != options.given.end()) {
    std::string outside;
    std::size_t run = 0;
    for (const std::string& name : options.simulate_workloads)
      if (std::none_of(sweep.workloads.begin(), sweep.workloads.end(), [&](const Workload& w) { return w.name == name; }))
        outside += (outside.empty() ? "" : ", ") + name;
      else
        ++run;
    if (run == 0 && !options.simulate_workloads.empty())
      throw UsageError("--simulate-workloads names only workloads this sweep does not run (" + outside +
                           "): nothing would be simulated",
                       "add them to --workload, or leave --simulate-workloads out to simulate every workload");
    if (!outside.empty()) notes << "note: --simulate-workloads names " << outside << ", which this sweep does not run\n";
  }
  leave_out_one_thread_programs(options, sweep.workloads, notes);
  make_program_inputs(options, sweep.workloads, paths, notes);
  std::vector<Run> plan = make_plan(options, sweep.workloads, sweep.allocators);
  sweep.simulating = std::any_of(plan.begin(), plan.end(), [](const Run& r) { return r.kind == RunKind::simulated; });
  if (sweep.simulating) sweep.simulator = find_simulator(simulator_probe_limit(options.timeout_seconds));
  if (sweep.simulating && !fs::exists(paths.sim_clock))
    throw UsageError("libsim_clock.so is not built (" + paths.sim_clock.string() + ")", "run 'make build'");
  sweep.workloads_meta = nlohmann::json::object();
  for (const Workload& w : sweep.workloads)
    sweep.workloads_meta[w.name] = {{meta::workload_family, w.family},
                                    {meta::workload_work, w.work_per_thread ? "per-thread" : "total"}};
  sweep.plan_keys = nlohmann::json::array();
  for (const Run& run : plan) sweep.plan_keys.push_back(run.key());
  sweep.shard = options.shard.empty() ? Shard{} : parse_shard(options.shard);
  sweep.plan = shard_of(plan, sweep.shard);
  if (sweep.resuming) check_resumed_plan(sweep.saved_meta, sweep.plan_keys);
  sweep.options = std::move(options);
  return sweep;
}

}  // namespace allocstamp
