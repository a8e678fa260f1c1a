// commands/run.cpp — `bench [flags]`, the run verb, as a pipeline read top to
// bottom: the preset (the default job, narrowed by the flags, when none is
// named) or the resumed folder's options (run_resume.h); the catalog and the
// names resolved (cli/); the plan (plan/); the folder and its meta.json
// (results/); each run made (run/) and appended as it ends; a workload's
// precision rounds (run_precision.h) and its table (output/) as soon as its
// runs are done; then summary.csv, the call sites, the ranking, and the
// figures and report when the preset asks for them. Everything that can be
// wrong with the command line is checked before the results folder exists,
// so a bad invocation leaves nothing.
#include <algorithm>
#include <chrono>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "cli/presets.h"
#include "cli/registry.h"
#include "cli/selection.h"
#include "commands/commands.h"
#include "commands/run_precision.h"
#include "commands/run_resume.h"
#include "key_names.h"
#include "memprof_limits.h"
#include "meta_names.h"
#include "model/errors.h"
#include "model/format.h"
#include "model/output_file.h"
#include "model/shell_words.h"
#include "output/ranking.h"
#include "plan/plan.h"
#include "plan/shards.h"
#include "results/callsites.h"
#include "results/meta.h"
#include "results/results_folder.h"
#include "analysis/summary.h"
#include "output/progress.h"
#include "run/environment.h"
#include "run/executor.h"
#include "run/inputs.h"
#include "run/machine.h"
#include "run/program_result.h"
#include "run/run_one.h"
#include "run/simulation.h"

namespace allocstamp {

namespace fs = std::filesystem;

namespace {

nlohmann::json allocator_meta(const std::vector<Allocator>& allocators) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& a : allocators)
    list.push_back({{meta::allocator_name, a.name},
                    {meta::allocator_library, a.library},
                    {meta::allocator_package, a.package},
                    {meta::allocator_version, package_version(a.package)},
                    {meta::allocator_installed, a.installed},
                    {meta::allocator_env, a.env}});
  return list;
}

}  // namespace

void choose_run_preset(Options& options, const Paths& paths, std::ostream& out) {
  const fs::path presets_file = paths.source / "workloads" / "presets.json";
  if (options.resume.empty()) return choose_preset(options, presets_file, out);
  // A resumed sweep keeps its options; whether it ends with the figures is its preset's word.
  const Meta meta = read_meta(options.resume);
  const std::string name = meta.preset();
  for (const Preset& p : load_presets(presets_file))
    if (p.name == name) options.plot_after = p.plot && !options.no_plot && !meta.no_plot();
}

namespace {

// The folder's figures and report (bench plot's), what was drawn or why not
// into logs/plot.log; the one line the terminal gets, and whether a figure
// failed. gnuplot missing or a folder it cannot read fails the figures, never
// the sweep's ranking after them.
std::pair<bool, std::string> draw_into_log(const std::filesystem::path& dir, const Paths& paths, bool per_comparison) {
  const std::filesystem::path log = dir / "logs" / "plot.log";
  std::ostringstream drawing;
  drawing << "bench plot " << dir.string() << "\n";
  std::string line;
  bool failed = false;
  try {
    const DrawnFolder done = draw_folder(dir, paths, drawing, per_comparison);
    failed = done.failed;
    line = "figures: " + (dir / "report.html").string() + " (" + std::to_string(done.figures) + " drawn, " +
           std::to_string(done.not_drawn) + " not drawn" + (done.failed ? ", some failed" : "") + ": logs/plot.log)";
  } catch (const std::runtime_error& e) {  // UsageError, RunError: said, not thrown past the ranking
    drawing << "error: " << e.what() << "\n";
    failed = true;
    line = "figures: not drawn: " + std::string(e.what());
  }
  replace_file(log, drawing.str());
  return {failed, wrap_words(line, kTerminalWidth - 9, 9)};
}

}  // namespace

int run_sweep(Options options, const Paths& paths, Executor& executor, std::ostream& out, fs::path* results_dir) {
  const auto sweep_start = std::chrono::steady_clock::now();
  const bool resuming = !options.resume.empty();
  if (options.redo_failed && !resuming)
    throw UsageError("--redo-failed makes a sweep's failed runs again, and goes with --resume",
                     "give --resume DIR --redo-failed, DIR the sweep's results folder");
  nlohmann::json saved_meta;
  if (resuming) saved_meta = resume_options(options);

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
  if (options.precision > 0 && options.max_reps < options.reps)
    throw UsageError("--max-reps " + std::to_string(options.max_reps) + " is below --reps " + std::to_string(options.reps),
                     "give --max-reps at least the repetitions the sweep starts with");
  Catalog catalog = load_catalog(options, paths);
  std::vector<Allocator> allocators = select_allocators(options, catalog);
  std::vector<Workload> workloads = select_workloads(options, catalog, paths);
  {
    std::string dropped;
    for (const Workload& w : workloads)
      if (auto it = options.dropped_preset_args.find(w.name); it != options.dropped_preset_args.end())
        dropped += "\n  " + w.name + " " + shell_line(it->second);
    if (!dropped.empty())
      std::cerr << "note: --size " << options.size << " replaces preset " << options.preset
                << "'s sizes and drops the arguments it gives with them:" << dropped << "\n";
  }
  if (options.profiled() && !fs::exists(paths.memprof))
    throw UsageError("libmemprof.so is not built (" + paths.memprof.string() + ")", "run 'make build'");
  // A known workload the sweep does not run is simply not simulated (a preset
  // narrowed by --workload); a name no registry knows is a mistake.
  for (const std::string& name : options.simulate_workloads)
    if (std::none_of(catalog.workloads.begin(), catalog.workloads.end(), [&](const Workload& w) { return w.name == name; }))
      throw UsageError("--simulate-workloads names '" + name + "', which is not a workload",
                       "name workloads from bench --list");
  // A one-thread program has nothing to run in a sweep without 1 thread: said, and left out.
  if (std::find(options.threads.begin(), options.threads.end(), 1) == options.threads.end()) {
    std::vector<std::string> left;
    for (const Workload& w : workloads)
      if (w.single_thread) left.push_back(w.name);
    if (!left.empty() && left.size() == workloads.size())
      throw UsageError("every workload chosen runs at one thread only, and --threads leaves 1 out", "add 1 to --threads");
    if (!left.empty()) {
      std::string names;
      for (const std::string& name : left) names += (names.empty() ? "" : ", ") + name;
      std::cerr << "note: " << names << " run at one thread only, and --threads leaves 1 out: left out of this sweep\n";
      workloads.erase(std::remove_if(workloads.begin(), workloads.end(), [](const Workload& w) { return w.single_thread; }),
                      workloads.end());
    }
  }
  // Someone else's program: at a size its entry has, with its generated input
  // made now (not while a run is timed; a dry run only names it).
  for (Workload& w : workloads) {
    const std::string size = options.size_of(w.name);
    if (!w.size_args.empty() && !w.size_args.count(size)) {
      std::string sizes;
      for (const auto& [name, args] : w.size_args) sizes += (sizes.empty() ? "" : ", ") + name;
      throw UsageError("the workload '" + w.name + "' has no size '" + size + "'", "use --size " + sizes);
    }
    if (options.dry_run && !w.input_generator.empty()) w.inputs[size] = input_path(w, size, options.seed, paths);
  }
  if (!options.dry_run) prepare_inputs(workloads, [&](const std::string& w) { return options.size_of(w); },
                                       options.seed, paths, std::cerr);
  std::vector<Run> plan = make_plan(options, workloads, allocators);
  const bool simulating = std::any_of(plan.begin(), plan.end(), [](const Run& r) { return r.kind == RunKind::simulated; });
  const Simulator simulator = simulating ? find_simulator(simulator_probe_limit(options.timeout_seconds)) : Simulator{};
  if (simulating && !fs::exists(paths.sim_clock))
    throw UsageError("libsim_clock.so is not built (" + paths.sim_clock.string() + ")", "run 'make build'");
  nlohmann::json workloads_meta = nlohmann::json::object();  // what the figures need to know of each
  for (const Workload& w : workloads)
    workloads_meta[w.name] = {{meta::workload_family, w.family},
                              {meta::workload_work, w.work_per_thread ? "per-thread" : "total"}};
  nlohmann::json plan_keys = nlohmann::json::array();
  for (const Run& run : plan) plan_keys.push_back(run.key());  // the whole plan, also in a shard's folder
  const Shard shard = options.shard.empty() ? Shard{} : parse_shard(options.shard);
  plan = shard_of(plan, shard);
  if (resuming) check_resumed_plan(saved_meta, plan_keys);

  if (options.dry_run) {
    // Resuming: only the runs still to make.
    std::set<std::string> recorded;
    if (resuming) {
      const ResultsFolder reopened = ResultsFolder::reopen(options.resume);  // a torn last row cut off
      check_recorded_runs(options.resume, plan, options);
      recorded = reopened.completed_keys();
      if (options.redo_failed)
        for (const std::string& key : reopened.failed_keys()) recorded.erase(key);
    }
    std::size_t left = 0;
    for (const Run& run : plan) {
      if (recorded.count(run.key())) continue;
      ++left;
      out << run.id << "  " << describe(run) << "\n    ";
      for (const auto& e : child_environment(run, options, paths))
        if (e.rfind("LD_PRELOAD=", 0) == 0 || e.rfind("ITM_", 0) == 0 || run.allocator.env.count(e.substr(0, e.find('='))))
          out << shell_word(e) << " ";  // the entry's own variables: a variant's settings
      if (run.kind == RunKind::simulated) {
        out << shell_word(simulator.valgrind) << " ";
        for (const auto& a : simulated_arguments("<private folder>/callgrind.out",
                                                 !run.workload.contract, "", {}))
          if (!a.empty()) out << shell_word(a) << " ";
      }
      out << (paths.build / run.workload.binary).string();
      for (const auto& a : child_arguments(run, options)) out << " " << a;
      out << "\n";
    }
    out << left << " runs";
    if (!shard.whole()) out << " of shard " << shard.text() << " (the whole plan: " << plan_keys.size() << ")";
    if (resuming) out << " still to make (" << plan.size() - left << " of " << plan.size() << " recorded)";
    if (options.precision > 0)
      out << "; then, with --precision " << number_text("%g", options.precision)
          << ", more timed rounds for the groups still wider (up to --max-reps " << options.max_reps << ")";
    out << "; nothing was run (--dry-run)\n";
    return 0;
  }

  // memprof takes paths of a bounded length: the call-site files it writes
  // under the folder (callsites/<run id>.txt, ids of up to 10 digits) must fit.
  if (options.profiled() && !options.callsites.empty() && options.callsites != "0" && !options.out.empty()) {
    const std::string longest = (fs::absolute(options.out) / "callsites" / "1234567890.txt").string();
    if (longest.size() >= ALLOCSTAMP_MEMPROF_PATH_BYTES)
      throw UsageError("--out is too long: the call-site files memprof writes under it would take paths of " +
                           std::to_string(longest.size()) + " bytes, and it takes at most " +
                           std::to_string(ALLOCSTAMP_MEMPROF_PATH_BYTES - 1),
                       "choose a shorter --out (or --callsites 0)");
  }
  fs::path dir = !options.out.empty() ? fs::path(options.out) : claim_default_folder(paths);
  nlohmann::json allocators_now = allocator_meta(allocators);
  std::map<std::string, std::string> libraries;  // runs.csv's alloc_library, by allocator
  for (const Allocator& a : allocators) libraries[a.name] = library_identity(a);
  const std::vector<std::string> warnings = machine_warnings();
  nlohmann::json meta;
  if (resuming) {
    meta = saved_meta;  // the sweep's provenance stays; each resume is added to it
    if (meta.contains(meta::allocators) && meta[meta::allocators] != allocators_now)
      std::cerr << "warning: allocator libraries or versions changed since this sweep started; meta.json keeps both\n";
    meta[meta::resumed].push_back({{meta::resume_at, local_time_text("%Y-%m-%dT%H:%M:%S%z")},
                                   {meta::command_line, options.command_line},
                                   {meta::allocators, allocators_now},
                                   {meta::machine_warnings, warnings}});
  } else {
    meta = {{meta::schema, kResultsSchema},
            {meta::command_line, options.command_line},
            {meta::started, local_time_text("%Y-%m-%dT%H:%M:%S%z")},
            {meta::options, options},
            {meta::options_seal, options_seal(nlohmann::json(options))},
            {meta::plan, plan_keys},
            {meta::shard, shard.whole() ? nlohmann::json(nullptr)
                                        : nlohmann::json{{meta::shard_index, shard.index},
                                                         {meta::shard_count, shard.count},
                                                         {meta::shard_runs, plan.size()}}},
            {meta::machine, describe_machine(paths.source)},
            {meta::machine_warnings, warnings},
            {meta::inherited_environment, inherited_tuning()},
            {meta::memprof, !options.profiled() ? "" : paths.memprof.string()},
            {meta::simulator, !simulating ? nlohmann::json(nullptr)
                                          : nlohmann::json{{meta::simulator_valgrind, simulator.valgrind},
                                                           {meta::simulator_version, simulator.version},
                                                           {meta::simulator_hwcaps, simulator.hwcaps},
                                                           {meta::simulator_identity, simulator.identity()}}},
            {meta::allocators, allocators_now},
            {meta::workloads, workloads_meta}};
  }
  // A new folder gets meta.json first: a folder left by a failure can always be resumed.
  ResultsFolder folder = resuming ? ResultsFolder::reopen(dir) : ResultsFolder::create(dir, meta);
  if (resuming) check_recorded_runs(dir, plan, options);  // once a torn last row is cut off
  if (resuming && options.redo_failed) {
    std::set<std::string> planned;
    for (const Run& run : plan) planned.insert(run.key());
    std::cerr << "--redo-failed: " << folder.forget_failed_runs(planned) << " failed run(s) of the plan to make again\n";
  }
  if (results_dir) *results_dir = dir;
  std::set<std::string> done = resuming ? folder.completed_keys() : std::set<std::string>{};
  std::set<std::string> skipped_before = resuming ? folder.completed_keys(true) : std::set<std::string>{};
  if (resuming) folder.write_meta(meta);
  if (options.out.empty()) point_latest_at(paths, dir);  // an explicit --out leaves results/latest alone
  for (const auto& warning : warnings) std::cerr << "warning: " << warning << "\n";
  if (unsigned cores = std::thread::hardware_concurrency(); cores > 0)
    for (int t : options.threads)
      if (unsigned(t) > cores)
        std::cerr << "warning: --threads " << t << " is more than this machine's " << cores
                  << " cores: those runs oversubscribe, and their times measure the scheduler as much as the allocator\n";

  install_interrupt_handlers();
  int to_run = 0;
  auto already = [&](const Run& run) {
    // A skipped run is tried again once its allocator is installed.
    return done.count(run.key()) || (skipped_before.count(run.key()) && !run.allocator.installed);
  };
  for (const Run& run : plan) to_run += already(run) ? 0 : 1;
  if (resuming) std::cerr << "resuming " << dir.string() << ": " << to_run << " of " << plan.size() << " runs left\n";
  Progress progress(to_run);
  // Each program's output, first of its cell (a resumed folder's ok runs first).
  ProgramResults program_results;
  if (resuming) {
    const RunsTable recorded = load_runs(dir, "results");
    for (const CsvRow& row : recorded.rows)
      if (const std::string digest = recorded.extra_text(row, "output_digest");
          !digest.empty() && recorded.status(row) == Status::ok)
        program_results.remember(recorded.text(row, keys::workload), recorded.text(row, keys::size),
                                 recorded.text(row, keys::args), int(recorded.number(row, keys::threads)),
                                 recorded.text(row, keys::allocator), int(recorded.number(row, keys::run_id)), digest);
  }
  int finished = 0;
  bool all_ok = true;
  bool stopped = false;
  // Runs one planned run and records it; false when the sweep is interrupted.
  const std::function<bool(const Run&)> execute = [&](const Run& run) {
    if (interrupted()) return false;
    // What the run is run with beyond its plan: the child's arguments (a
    // server's, then its client's command: "... ; redis-benchmark -p {port} ..."),
    // the allocator's build and the variables that tune it.
    auto setting_of = [&](const std::vector<std::string>& env) {
      return RunSetting{recorded_arguments(run, options), libraries[run.allocator.name],
                        allocator_environment(env, run.allocator)};
    };
    if (!run.allocator.installed) {
      folder.append_skipped(run, setting_of(child_environment(run, options, paths)),
                            "allocator not installed: apt-get install " + run.allocator.package);
      progress.finished(run, "skipped", 0);
      ++finished;
      return true;
    }
    if (run.kind == RunKind::simulated && !run.allocator.no_simulation.empty()) {
      folder.append_skipped(run, setting_of(child_environment(run, options, paths)),
                            "not simulated: " + run.allocator.no_simulation);
      progress.finished(run, "skipped", 0);
      ++finished;
      return true;
    }
    if (run.kind == RunKind::simulated && !run.workload.client_binary.empty()) {
      // Measured 2026-12-05: redis-server under callgrind and the virtual
      // clock did not stop within 10 s of SIGTERM (its timers never fire
      // while it waits), and a server's instructions depend on when its
      // client's requests arrive, which no clock of the run fixes.
      folder.append_skipped(run, setting_of(child_environment(run, options, paths)),
                            "not simulated: a server (its timers never fire under the virtual clock, and its "
                            "instructions depend on when its client's requests arrive)");
      progress.finished(run, "skipped", 0);
      ++finished;
      return true;
    }
    progress.starting(run, finished);
    RunOutcome outcome = run_one(run, options, paths, simulator, executor, dir, folder.log_path(run));
    if (outcome.interrupted) return false;  // not recorded: --resume runs it again
    if (auto digest = outcome.records.metrics.find("output_digest");
        outcome.status == Status::ok && digest != outcome.records.metrics.end())
      if (std::string problem = program_results.judge(run, recorded_arguments(run, options), digest->second);
          !problem.empty()) {
        outcome.status = Status::failed;
        outcome.records.metrics["failure"] = "\"" + problem + "\"";
        progress.pause();
        std::cerr << describe(run) << ": " << problem << "\n";
      }
    const Finished& f = outcome.finished;
    // The row as written: failed where a value is not of its column's type.
    const Status status = folder.append(run, setting_of(outcome.env), outcome.status, f, outcome.records);
    if (status != outcome.status)
      std::cerr << describe(run) << ": a value memprof or the program reported is not of its column's type: the run "
                << "is recorded failed, the value left out (runs.csv's extra names the column)\n";
    all_ok = all_ok && status == Status::ok;
    progress.finished(run, status_name(status), double(f.wall_ns) / 1e9);
    ++finished;
    return true;
  };
  // Workload by workload (the plan's order): once a workload's planned runs
  // are done, its precision rounds, then its table — the first answer comes
  // after the first workload, not at the end.
  std::vector<std::string> workload_order;
  for (const Run& run : plan)
    if (workload_order.empty() || workload_order.back() != run.workload.name) workload_order.push_back(run.workload.name);
  std::set<std::string> printed;
  PrecisionTally precision;
  int next_id = static_cast<int>(plan_keys.size());
  for (std::size_t i = 0; i < plan.size() && !stopped; ++i) {
    const Run& run = plan[i];
    if (!already(run) && !execute(run)) {
      stopped = true;
      break;
    }
    if (i + 1 < plan.size() && plan[i + 1].workload.name == run.workload.name) continue;
    // What reads the folder between runs (the rounds' intervals, the table)
    // never ends the sweep: the runs still to make are made, and the error is
    // said (the folder is read again, whole, at the end).
    auto goes_on = [&](const char* what, const std::function<void()>& step) {
      try {
        step();
      } catch (const UsageError& e) {
        progress.pause();
        std::cerr << "warning: " << run.workload.name << "'s " << what << ": " << e.what() << " — the sweep goes on\n";
      }
    };
    if (options.precision > 0) {
      const auto at = std::find(workload_order.begin(), workload_order.end(), run.workload.name);
      const double share = double(at - workload_order.begin() + 1) / double(workload_order.size());
      goes_on("precision rounds", [&] {
        add_rounds_for_precision(options, plan, run.workload.name, share, dir, next_id, sweep_start, progress, execute,
                                 stopped, precision);
      });
    }
    if (stopped || workload_order.size() < 2) continue;  // one workload: its table comes with the bottom line
    progress.pause();
    goes_on("table", [&] {
      print_workload_tables(dir, run.workload.name, out, options.wide, options.per_comparison);
      printed.insert(run.workload.name);
    });
  }
  if (options.precision > 0) meta[meta::precision] = precision_meta(options, precision);
  progress.done();
  meta[meta::finished] = local_time_text("%Y-%m-%dT%H:%M:%S%z");
  meta[meta::interrupted] = stopped;
  const auto [busy, measured] = busy_runs_of(dir);
  meta[meta::busy_runs] = busy;
  meta[meta::runs_with_machine_state] = measured;
  folder.write_meta(meta);
  // callsites.csv first: summary.csv's reading checks every table, that one too.
  const std::size_t sampled_runs = write_callsites(dir);
  write_summary(dir);
  if (sampled_runs) out << "call sites of " << sampled_runs << " profiled run(s): " << (dir / "callsites.csv").string() << "\n";
  // The figures and the report before the ranking, each figure's line into
  // logs/plot.log: the run ends with its bottom line, not with the figures.
  const auto [figures_failed, figures_line] =
      options.plot_after && !stopped ? draw_into_log(dir, paths, options.per_comparison) : std::pair{false, std::string()};
  print_ranking(dir, out, options.wide, printed, options.per_comparison);
  if (!figures_line.empty()) out << "\n" << figures_line << "\n";
  out << (figures_line.empty() ? "\n" : "") << "results: "
      << wrap_words(dir.string() + "  (runs.csv, summary.csv, meta.json, series.csv, scopes.csv, logs/)",
                    kTerminalWidth - 9, 9)
      << "\n";
  if (stopped) {
    std::cerr << "interrupted: " << finished << " run(s) recorded; finish with: bench --resume " << dir.string() << "\n";
    return 130;
  }
  return all_ok && !figures_failed ? 0 : 1;
}

int command_run(Options options, const Paths& paths, std::ostream& out) {
  choose_run_preset(options, paths, out);
  ProcessExecutor executor;
  return run_sweep(options, paths, executor, out);
}

}  // namespace allocstamp
