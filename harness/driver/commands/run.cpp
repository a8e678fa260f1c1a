// commands/run.cpp — `bench [flags]`, the run verb, in four steps read top to
// bottom, each handing the next a value: prepare (run_prepare.h: the preset or
// the resumed folder's options, the names resolved, the plan; everything that
// can be wrong with the command line checked before the results folder exists,
// so a bad invocation leaves nothing), open (the folder and its meta.json),
// execute (each run made and appended as it ends; a workload's precision
// rounds and its table as soon as its runs are done, from the runs the folder
// holds), finish (run_finish.h: one view of the folder for summary.csv, the
// figures and the ranking).
#include <algorithm>
#include <chrono>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <thread>

#include "analysis/cell_summary.h"
#include "cli/presets.h"
#include "cli/registry.h"
#include "commands/commands.h"
#include "commands/run_finish.h"
#include "commands/run_precision.h"
#include "commands/run_prepare.h"
#include "commands/run_resume.h"
#include "key_names.h"
#include "memprof_limits.h"
#include "meta_names.h"
#include "model/errors.h"
#include "model/format.h"
#include "model/shell_words.h"
#include "output/progress.h"
#include "output/ranking.h"
#include "results/meta.h"
#include "results/results_folder.h"
#include "results/results_view.h"
#include "results/run_seconds.h"
#include "run/environment.h"
#include "run/executor.h"
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
  // A resumed sweep keeps its options, its preset's among them (resume_options).
  if (options.resume.empty()) choose_preset(options, paths.source / "workloads" / "presets.json", out);
}

namespace {

// --dry-run: each run still to make, with the variables and command line its
// child would get; nothing is run and no folder is made or changed (a resumed
// one is read, not reopened).
int print_dry_run(const PreparedSweep& sweep, const Paths& paths, std::ostream& out) {
  const Options& options = sweep.options;
  std::set<std::string> recorded;  // resuming: only the runs still to make
  if (sweep.resuming) {
    const RunsTable runs = load_runs(options.resume, "the resumed folder");  // a torn last row is said: --resume cuts it off
    recorded = resumed_runs(options.resume, runs, sweep.plan, options).kept;
  }
  std::size_t left = 0;
  for (const Run& run : sweep.plan) {
    if (recorded.count(run.key())) continue;
    ++left;
    out << run.id << "  " << describe(run) << "\n";
    const ChildCommand child = child_command(run, options, paths);
    std::vector<std::string> command;  // as a shell would take it, in lines a terminal shows whole
    for (const auto& e : child.env)
      if (e.rfind("LD_PRELOAD=", 0) == 0 || e.rfind("ITM_", 0) == 0 || run.allocator.env.count(e.substr(0, e.find('='))))
        command.push_back(e);  // the entry's own variables: a variant's settings
    if (run.kind == RunKind::simulated) {
      command.push_back(sweep.simulator.valgrind);
      for (const auto& a : simulated_arguments("<private folder>/callgrind.out", !run.workload.marks_phase, "", {}))
        if (!a.empty()) command.push_back(a);
    }
    command.push_back((paths.build / run.workload.binary).string());
    command.insert(command.end(), child.args.begin(), child.args.end());
    out << shell_lines(command, kTerminalWidth, 4);
  }
  out << left << " runs";
  if (!sweep.shard.whole()) out << " of shard " << sweep.shard.text() << " (the whole plan: " << sweep.plan_keys.size() << ")";
  if (sweep.resuming) out << " still to make (" << sweep.plan.size() - left << " of " << sweep.plan.size() << " recorded)";
  if (options.precision > 0)
    out << "; then, with --precision " << number_text("%g", options.precision)
        << ", more timed rounds for the groups still wider (up to --max-reps " << options.max_reps << ")";
  out << "; nothing was run (--dry-run)\n";
  return 0;
}

// The folder a sweep writes, open, and its meta.json as it stands.
struct OpenedSweep {
  ResultsFolder folder;
  nlohmann::json meta;
  std::map<std::string, std::string> libraries;  // runs.csv's alloc_library, by allocator
  std::set<std::string> recorded;  // a resumed folder's runs that are not made again
};

// The run verb's second step: the folder made (meta.json first: a folder left
// by a failure can always be resumed) or reopened, its recorded runs held
// against the plan, the machine's warnings said.
OpenedSweep open_sweep(const PreparedSweep& sweep, const Paths& paths) {
  const Options& options = sweep.options;
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
  nlohmann::json allocators_now = allocator_meta(sweep.allocators);
  std::map<std::string, std::string> libraries;
  for (const Allocator& a : sweep.allocators) libraries[a.name] = library_identity(a);
  const std::vector<std::string> warnings = machine_warnings();
  nlohmann::json meta;
  if (sweep.resuming) {
    meta = sweep.saved_meta;  // the sweep's provenance stays; each resume is added to it
    if (meta.contains(meta::allocators) && meta[meta::allocators] != allocators_now)
      std::cerr << "warning: allocator libraries or versions changed since this sweep started; meta.json keeps both\n";
    meta[meta::resumed].push_back({{meta::resume_at, local_time_text("%Y-%m-%dT%H:%M:%S%z")},
                                   {meta::command_line, options.command_line},
                                   {meta::allocators, allocators_now},
                                   {meta::machine_warnings, warnings}});
  } else {
    const Simulator& simulator = sweep.simulator;
    meta = {{meta::schema, kResultsSchema},
            {meta::command_line, options.command_line},
            {meta::started, local_time_text("%Y-%m-%dT%H:%M:%S%z")},
            {meta::options, options},
            {meta::options_seal, options_seal(nlohmann::json(options))},
            {meta::plan, sweep.plan_keys},
            {meta::shard, sweep.shard.whole() ? nlohmann::json(nullptr)
                                              : nlohmann::json{{meta::shard_index, sweep.shard.index},
                                                               {meta::shard_count, sweep.shard.count},
                                                               {meta::shard_runs, sweep.plan.size()}}},
            {meta::machine, describe_machine(paths.source)},
            {meta::machine_warnings, warnings},
            {meta::inherited_environment, inherited_tuning()},
            {meta::memprof, !options.profiled() ? "" : paths.memprof.string()},
            {meta::simulator, !sweep.simulating ? nlohmann::json(nullptr)
                                                : nlohmann::json{{meta::simulator_valgrind, simulator.valgrind},
                                                                 {meta::simulator_version, simulator.version},
                                                                 {meta::simulator_hwcaps, simulator.hwcaps},
                                                                 {meta::simulator_identity, simulator.identity()}}},
            {meta::allocators, allocators_now},
            {meta::workloads, sweep.workloads_meta}};
  }
  OpenedSweep opened{sweep.resuming ? ResultsFolder::reopen(options.resume) : ResultsFolder::create(dir, meta), meta,
                     std::move(libraries), {}};
  ResultsFolder& folder = opened.folder;
  if (sweep.resuming) {
    const ResumedRuns left = resumed_runs(options.resume, folder.runs(), sweep.plan, options);
    if (options.redo_failed)
      std::cerr << "--redo-failed: " << folder.forget_runs(left.redo) << " failed run(s) of the plan to make again\n";
    // A run skipped before whose allocator is there now goes, or it would
    // appear twice and every reader refuse the folder.
    folder.forget_runs(left.retry);
    opened.recorded = left.kept;
    folder.write_meta(opened.meta);
  }
  if (options.out.empty()) point_latest_at(paths, dir);  // an explicit --out leaves results/latest alone
  for (const auto& warning : warnings) std::cerr << "warning: " << warning << "\n";
  if (unsigned cores = std::thread::hardware_concurrency(); cores > 0)
    for (int t : options.threads)
      if (unsigned(t) > cores)
        std::cerr << "warning: --threads " << t << " is more than this machine's " << cores
                  << " cores: those runs oversubscribe, and their times measure the scheduler as much as the allocator\n";
  return opened;
}

// The run verb's third step: workload by workload (the plan's order), each
// run made and appended as it ends; once a workload's planned runs are done,
// its precision rounds, then its table — the first answer comes after the
// first workload, not at the end.
SweepOutcome execute_sweep(const PreparedSweep& sweep, OpenedSweep& opened, const Paths& paths, Executor& executor,
                           std::chrono::steady_clock::time_point sweep_start, std::ostream& out) {
  const Options& options = sweep.options;
  const std::vector<Run>& plan = sweep.plan;
  ResultsFolder& folder = opened.folder;
  const fs::path& dir = folder.dir();
  SweepOutcome outcome;
  auto already = [&](const Run& run) { return opened.recorded.count(run.key()) > 0; };
  std::vector<Run> to_make;
  for (const Run& run : plan)
    if (!already(run)) to_make.push_back(run);
  if (sweep.resuming)
    std::cerr << "resuming " << dir.string() << ": " << to_make.size() << " of " << plan.size() << " runs left\n";
  Progress progress(to_make, RunSeconds::load(paths.source / "workloads" / "run-seconds.csv"), options.precision > 0);
  // Each program's output, first of its cell (a resumed folder's ok runs first).
  ProgramResults program_results;
  const RunsTable& recorded = folder.runs();
  for (const CsvRow& row : recorded.rows)
    if (const std::string digest = recorded.extra_text(row, "output_digest");
        !digest.empty() && recorded.status(row) == Status::ok)
      program_results.remember(recorded.text(row, keys::workload), recorded.text(row, keys::size),
                               recorded.text(row, keys::args), int(recorded.number(row, keys::threads)),
                               recorded.text(row, keys::allocator), int(recorded.number(row, keys::run_id)), digest);
  RunContext context{options, paths, sweep.simulator, executor, dir, opened.libraries, program_results};
  // Runs one planned run and records it; false when the sweep is interrupted.
  const std::function<bool(const Run&)> execute = [&](const Run& run) {
    if (interrupted()) return false;
    progress.starting(run, outcome.finished);
    const RunOutcome ran = run_one(run, context, folder.log_path(run));
    if (ran.interrupted) return false;  // not recorded: --resume runs it again
    // The row as written: failed where a value is not of its column's type.
    const Status status = folder.append(run, ran);
    if (ran.skipped.empty() && status != ran.status)
      std::cerr << describe(run) << ": a value memprof or the program reported is not of its column's type: the run "
                << "is recorded failed, the value left out (runs.csv's extra names the column)\n";
    outcome.all_ok = outcome.all_ok && (status == Status::ok || !ran.skipped.empty());
    progress.finished(run, ran.skipped.empty() ? status_name(status) : "skipped: " + ran.skipped, double(ran.finished.wall_ns) / 1e9);
    ++outcome.finished;
    return true;
  };
  std::vector<std::string> workload_order;
  for (const Run& run : plan)
    if (workload_order.empty() || workload_order.back() != run.workload.name) workload_order.push_back(run.workload.name);
  ExtraRunIds extra_ids(static_cast<int>(sweep.plan_keys.size()), sweep.shard, folder.runs());
  for (std::size_t i = 0; i < plan.size() && !outcome.stopped; ++i) {
    const Run& run = plan[i];
    if (!already(run) && !execute(run)) {
      outcome.stopped = true;
      break;
    }
    if (i + 1 < plan.size() && plan[i + 1].workload.name == run.workload.name) continue;
    // What reads the runs between workloads (the rounds' intervals, the table)
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
        add_rounds_for_precision(options, plan, run.workload.name, share, folder.runs(), extra_ids, sweep_start, progress,
                                 execute, outcome.stopped, outcome.precision);
      });
    }
    progress.workload_done(run.workload.name);
    if (outcome.stopped || workload_order.size() < 2) continue;  // one workload: its table comes with the bottom line
    progress.pause();
    goes_on("table", [&] {
      const ResultsView view = results_view_of(dir, folder.runs());
      print_workload_tables(view, summarize_cells(view, options.per_comparison), run.workload.name, out, options.wide);
      outcome.printed.insert(run.workload.name);
    });
  }
  progress.done();
  return outcome;
}

}  // namespace

// The run verb: prepare, open, execute, finish — each step a value for the next.
int run_sweep(Options options, const Paths& paths, Executor& executor, std::ostream& out, fs::path* results_dir) {
  const auto sweep_start = std::chrono::steady_clock::now();
  const PreparedSweep sweep = prepare_sweep(std::move(options), paths, std::cerr);
  if (sweep.options.dry_run) return print_dry_run(sweep, paths, out);
  // From the moment the folder exists, an interrupt is a stopped sweep (said,
  // exit 130), not a killed bench: installed before the folder is made.
  install_interrupt_handlers();
  OpenedSweep opened = open_sweep(sweep, paths);
  if (results_dir) *results_dir = opened.folder.dir();
  const SweepOutcome outcome = execute_sweep(sweep, opened, paths, executor, sweep_start, out);
  return finish_sweep(sweep, opened.folder, opened.meta, outcome, paths, out);
}

int command_run(Options options, const Paths& paths, std::ostream& out) {
  choose_run_preset(options, paths, out);
  ProcessExecutor executor;
  return run_sweep(options, paths, executor, out);
}

}  // namespace allocstamp
