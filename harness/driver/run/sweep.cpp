// sweep.cpp — the loop. Everything that can be wrong with the command line is
// checked before the results folder exists, so a bad invocation leaves nothing.
#include "run/sweep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <thread>
#include <tuple>

#include "results/callsites.h"
#include "run/environment.h"
#include "run/precision.h"
#include "output/format.h"
#include "errors.h"
#include "key_names.h"
#include "keys.h"
#include "memprof_limits.h"
#include "results/csv.h"
#include "results/meta.h"
#include "run/machine.h"
#include "plan/plan.h"
#include "output/progress.h"
#include "output/document.h"
#include "output/ranking.h"
#include "run/records.h"
#include "plan/shards.h"
#include "run/shell_words.h"
#include "run/simulation.h"
#include "cli/registry.h"
#include "results/results_folder.h"
#include "analysis/summary.h"

namespace allocstamp {

namespace fs = std::filesystem;

namespace {

std::string timestamp(const char* format) {
  std::time_t now = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, format, std::localtime(&now));
  return buf;
}

nlohmann::json allocator_meta(const std::vector<Allocator>& allocators) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& a : allocators)
    list.push_back({{"name", a.name}, {"library", a.library}, {"package", a.package},
                    {"version", package_version(a.package)}, {"installed", a.installed}, {"env", a.env}});
  return list;
}

void point_latest_at(const Paths& paths, const fs::path& dir) {
  fs::path link = paths.source / "results" / "latest";
  std::error_code ec;
  fs::create_directories(link.parent_path(), ec);
  fs::remove(link, ec);
  fs::create_directory_symlink(fs::absolute(dir), link, ec);
}

// A default folder per second; a second sweep in the same second gets "-2".
// create_directory is the atomic claim: two sweeps never share a folder.
fs::path claim_default_folder(const Paths& paths) {
  fs::path base = paths.source / "results" / "runs" / timestamp("%Y%m%d-%H%M%S");
  std::error_code ec;
  fs::create_directories(base.parent_path(), ec);
  for (int n = 1;; ++n) {
    fs::path candidate = n == 1 ? base : fs::path(base.string() + "-" + std::to_string(n));
    if (fs::create_directory(candidate, ec)) return candidate;
    if (ec) throw UsageError("cannot create " + candidate.string() + ": " + ec.message(), "choose a writable --out");
  }
}

// Why an ok exit is not an ok run: ld.so could not preload the allocator,
// memprof never reported (the run was not measured), its record is of a format
// this bench does not read, or the records were cut short.
std::string measurement_problem(const Run& run, const Records& records, const fs::path& log) {
  std::ifstream in(log);
  std::string line;
  while (std::getline(in, line))
    if (line.find("cannot be preloaded") != std::string::npos) return "the allocator library was not preloaded: " + line;
  if (!records.errors.empty()) return "the run's records are incomplete: " + records.errors.front().substr(1);
  if (run.kind == RunKind::profiled && !records.has_memprof) return "memprof did not report (see the log)";
  if (run.kind == RunKind::profiled && records.root_without_record)
    return "the program's own process wrote no memprof record (" + std::to_string(records.processes) +
           " process(es) it started did): its figures are not taken from theirs — a process killed by a signal, "
           "or one that ends with a raw exit_group system call, leaves none; see its log";
  if (records.has_memprof) {
    auto format = records.memprof.find(keys::format);
    std::string got = format == records.memprof.end() ? "none" : format->second;
    if (got != std::to_string(contract::kRecordFormat))
      return "memprof wrote record format " + got + ", this bench reads " + std::to_string(contract::kRecordFormat) +
             ": rebuild libmemprof.so with this allocstamp ('make build')";
  }
  return "";
}

// The folder's runs measured on a busy machine (machine.h busy_run), and the
// runs whose machine state was measured at all, from runs.csv: a resumed
// folder's earlier runs count, an older schema's (no such columns) do not.
std::pair<int, int> busy_runs_of(const fs::path& dir) {
  const RunsTable t = load_runs(dir, "results");
  auto value = [&](const CsvRow& row, const char* column) {
    const std::string& text = t.text(row, column);
    return text.empty() ? std::numeric_limits<double>::quiet_NaN() : std::strtod(text.c_str(), nullptr);
  };
  int busy = 0, measured = 0;
  for (const CsvRow& row : t.rows) {
    const double others = value(row, keys::others_cpu_pct), steal = value(row, keys::steal_pct);
    if (std::isnan(others) && std::isnan(steal)) continue;
    ++measured;
    busy += busy_run(others, steal) ? 1 : 0;
  }
  return {busy, measured};
}

// What --precision did over the sweep's workloads, for meta.json.
struct PrecisionTally {
  int rounds = 0;
  std::set<std::string> stopped_by;  // precise, max_reps, budget, interrupted: one or more per workload
  nlohmann::json short_of = nlohmann::json::array();
};

// --precision, after one workload's planned runs: rounds of one more timed
// repetition (every allocator of a cell group together, interleaved) for each
// of its groups whose time ratios are still wider than ±P% (run/precision.h),
// until none is, a group reaches --max-reps, or the sweep has run its share of
// --budget (workloads done so far / all, so the first workloads cannot use up
// the last ones'). Prints what it adds and the groups left short.
template <typename Execute>
void add_rounds_for_precision(const Options& options, const std::vector<Run>& plan, const std::string& workload,
                              double budget_share, const fs::path& dir, int& next_id,
                              std::chrono::steady_clock::time_point start, Progress& progress, Execute& execute,
                              bool& stopped, PrecisionTally& tally) {
  const double target = options.precision / 100.0;
  char target_text[32];
  std::snprintf(target_text, sizeof target_text, "±%g%%", options.precision);
  std::vector<Run> models;  // the workload's first timed round: one run per threads and allocator
  for (const Run& run : plan)
    if (run.kind == RunKind::timed && run.rep == 1 && run.workload.name == workload) models.push_back(run);
  std::map<int, int> next_rep;  // per thread count, the repetition a new round makes
  int rounds = 0;
  std::string stopped_by = "precise";
  std::mt19937 shuffler(options.seed + 1);
  std::vector<GroupPrecision> short_of;
  const double budget = options.budget_minutes * budget_share;
  for (;;) {
    short_of.clear();
    for (const GroupPrecision& g : time_precision(dir))
      if (g.workload == workload && !(g.half_width <= target)) short_of.push_back(g);
    if (short_of.empty()) break;
    std::set<int> grow;
    for (const GroupPrecision& g : short_of) {
      int& rep = next_rep.try_emplace(g.threads, g.last_rep + 1).first->second;
      if (rep <= options.max_reps) grow.insert(g.threads);
    }
    if (grow.empty()) {
      stopped_by = "max_reps";
      break;
    }
    const double minutes = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / 60.0;
    if (options.budget_minutes > 0 && minutes >= budget) {
      stopped_by = "budget";
      break;
    }
    std::vector<Run> round;
    for (const Run& model : models) {
      if (!grow.count(model.threads)) continue;
      Run run = model;
      run.rep = next_rep[model.threads];
      run.id = ++next_id;
      round.push_back(run);
    }
    for (int threads : grow) ++next_rep[threads];
    if (options.shuffle) std::shuffle(round.begin(), round.end(), shuffler);
    const auto widest = std::max_element(short_of.begin(), short_of.end(), [](const auto& a, const auto& b) {
      return a.half_width < b.half_width;
    });
    progress.extend(static_cast<int>(round.size()));
    progress.say("precision: " + std::to_string(short_of.size()) + " cell group(s) of " + workload + " wider than " +
                 target_text + ": one more repetition for " + std::to_string(grow.size()) + " of them, " +
                 std::to_string(round.size()) + " runs");
    progress.say("  widest: " + describe(*widest));
    ++rounds;
    for (const Run& run : round)
      if (!execute(run)) {
        stopped = true;
        stopped_by = "interrupted";
        break;
      }
    if (stopped) break;
  }
  for (const GroupPrecision& g : short_of) {
    tally.short_of.push_back({{"workload", g.workload}, {"threads", g.threads}, {"reps", g.reps}, {"widest", g.widest},
                              {"half_width_pct", std::isinf(g.half_width) ? nlohmann::json(nullptr)
                                                                          : nlohmann::json(g.half_width * 100)}});
  }
  tally.rounds += rounds;
  tally.stopped_by.insert(stopped_by);
  if (short_of.empty()) {
    progress.say("precision: every cell group of " + workload + " within " + std::string(target_text) +
                 " (time ratios, 95% interval), " + std::to_string(rounds) + " round(s) added");
  } else if (!stopped) {
    const std::string limit = stopped_by == "budget" ? "its share of --budget " + number_text("%g", options.budget_minutes) + " min"
                                                     : "--max-reps " + std::to_string(options.max_reps);
    progress.say("precision: " + std::to_string(short_of.size()) + " cell group(s) of " + workload + " short of " +
                 target_text + " when " + limit + " stopped it:");
    for (const GroupPrecision& g : short_of) progress.say("  " + describe(g));
  }
}

// meta.json's record of --precision over the whole sweep: stopped_by is the
// strongest reason any workload stopped for (interrupted, budget, max_reps, precise).
nlohmann::json precision_meta(const Options& options, const PrecisionTally& tally) {
  std::string stopped_by = "precise";
  for (const char* reason : {"max_reps", "budget", "interrupted"})
    if (tally.stopped_by.count(reason)) stopped_by = reason;
  return {{"target_pct", options.precision}, {"max_reps", options.max_reps}, {"budget_minutes", options.budget_minutes},
          {"rounds_added", tally.rounds}, {"stopped_by", stopped_by}, {"short", tally.short_of}};
}

// A resumed folder's recorded runs are its plan's: each under the id the plan
// gives it, run with the arguments the plan gives it now. An edit of meta.json
// that changes both its options and its plan (or an option the plan's keys do
// not show, such as the seed) would otherwise mix two sweeps in one folder,
// or give two runs one id. A timed run the plan does not list is one a
// --precision round added.
void check_recorded_runs(const fs::path& dir, const std::vector<Run>& plan, const Options& options) {
  const RunsTable t = load_runs(dir, "results");
  std::map<std::string, const Run*> by_key;
  for (const Run& r : plan) by_key[r.key()] = &r;
  const std::string fix = "restore the folder's meta.json, or start a new sweep";
  for (const CsvRow& row : t.rows) {
    const std::string key = t.run_key(row);
    const std::string id = t.text(row, keys::run_id);
    auto it = by_key.find(key);
    if (it == by_key.end()) {
      if (options.precision > 0 && t.kind(row) == RunKind::timed) continue;
      throw UsageError(dir.string() + "/runs.csv holds run " + id + " (" + key + "), which the sweep's plan does not: "
                           "its meta.json was edited",
                       fix);
    }
    const Run& run = *it->second;
    if (id != std::to_string(run.id))
      throw UsageError(dir.string() + "/runs.csv holds " + key + " as run " + id + ", where the plan has it as run " +
                           std::to_string(run.id) + ": its meta.json was edited",
                       fix);
    const std::string& args = t.text(row, keys::args);
    if (!args.empty() && args != shell_line(child_arguments(run, options)))
      throw UsageError(dir.string() + "/runs.csv: run " + id + " ran with '" + args + "', and its options give '" +
                           shell_line(child_arguments(run, options)) + "' now: its meta.json was edited",
                       fix);
  }
}

}  // namespace

int run_sweep(Options options, const Paths& paths, Executor& executor, std::ostream& out, fs::path* results_dir) {
  const auto sweep_start = std::chrono::steady_clock::now();
  const bool resuming = !options.resume.empty();
  nlohmann::json saved_meta;
  if (resuming) {
    for (const auto& flag : options.given)
      if (flag != "--resume" && flag != "--dry-run" && flag != "--no-plot" && flag != "--registry" &&
          flag != "--workloads")
        throw UsageError(flag + " cannot be combined with --resume", "a resumed sweep keeps the options saved in its meta.json");
    fs::path dir = options.resume;
    saved_meta = read_meta(dir, MetaMissing::refuse).doc;
    if (!saved_meta.contains("options")) throw UsageError(dir.string() + "/meta.json is damaged", "start a new sweep");
    Options saved;
    try {
      saved = saved_meta["options"].get<Options>();
    } catch (const nlohmann::json::exception& e) {
      throw UsageError(dir.string() + "/meta.json has options this bench cannot read (" + e.what() + ")", "start a new sweep");
    }
    // Nothing in meta.json is trusted further than the command line was: the
    // same schema, the plan it recorded (checked against the runs its options
    // make, below), and no registry or workload file of its own folder (a
    // program named there would run with the sweep's).
    // An older folder (both files of its schema) goes on in its own columns,
    // its plan unrecorded or keyed otherwise; a folder of this schema
    // resumes only the plan it recorded.
    const int runs_schema = csv_schema(dir / "runs.csv");
    const int meta_schema = saved_meta.value("schema", 0);
    if (meta_schema != runs_schema)
      throw UsageError(dir.string() + ": meta.json says schema " + std::to_string(meta_schema) + ", runs.csv schema " +
                           std::to_string(runs_schema) + ": the folder was edited",
                       "restore its meta.json, or start a new sweep");
    if (meta_schema == kResultsSchema && (!saved_meta.contains("plan") || !saved_meta["plan"].is_array()))
      throw UsageError(dir.string() + "/meta.json records no plan: which runs the sweep was to make is unknown",
                       "restore its meta.json, or start a new sweep");
    std::error_code ec;
    const fs::path inside = fs::weakly_canonical(dir, ec);
    for (const std::vector<std::string>* files : {&saved.registries, &saved.workload_files})
      for (const std::string& f : *files) {
        const fs::path file = fs::weakly_canonical(f, ec);
        const auto [end, _] = std::mismatch(inside.begin(), inside.end(), file.begin(), file.end());
        if (end == inside.end())
          throw UsageError(dir.string() + "/meta.json names " + f + ", a file inside the results folder itself",
                           "a sweep's registries and workload files live outside its results; start a new sweep");
      }
    // A resume runs programs only from files the user names: a registry or
    // workloads file that meta.json names (anywhere: an edited meta.json can
    // point at any file) must be given again on the command line, and only those.
    for (const auto& [flag, was, given] :
         {std::tuple<const char*, const std::vector<std::string>*, const std::vector<std::string>*>{
              "--registry", &saved.registries, &options.registries},
          {"--workloads", &saved.workload_files, &options.workload_files}}) {
      auto canonical = [&](const std::vector<std::string>& files) {
        std::set<std::string> out;
        for (const std::string& f : files) out.insert(fs::weakly_canonical(f, ec).string());
        return out;
      };
      const std::set<std::string> in_meta = canonical(*was), named = canonical(*given);
      for (const std::string& f : in_meta)
        if (!named.count(f))
          throw UsageError("this sweep read " + std::string(flag == std::string("--registry") ? "allocators" : "workloads") +
                               " from " + f + " (its meta.json says so): a resume runs programs only from files you name",
                           "give " + std::string(flag) + " " + f + " with --resume, if that file is the one you meant");
      for (const std::string& f : named)
        if (!in_meta.count(f))
          throw UsageError(std::string(flag) + " " + f + " was not this sweep's (its meta.json names " +
                               (in_meta.empty() ? std::string("none") : *in_meta.begin()) + ")",
                           "give the files the sweep started with, or start a new sweep");
    }
    saved.resume = options.resume;
    saved.dry_run = options.dry_run;
    saved.no_plot = saved.no_plot || options.no_plot;
    saved.command_line = options.command_line;
    options = saved;
    options.out = dir.string();
  }

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
  if (options.profiled() && !fs::exists(paths.memprof))
    throw UsageError("libmemprof.so is not built (" + paths.memprof.string() + ")", "run 'make build'");
  // A known workload the sweep does not run is simply not simulated (a preset
  // narrowed by --workload); a name no registry knows is a mistake.
  for (const std::string& name : options.simulate_workloads)
    if (std::none_of(catalog.workloads.begin(), catalog.workloads.end(), [&](const Workload& w) { return w.name == name; }))
      throw UsageError("--simulate-workloads names '" + name + "', which is not a workload",
                       "name workloads from bench --list");
  std::vector<Run> plan = make_plan(options, workloads, allocators);
  const bool simulating = std::any_of(plan.begin(), plan.end(), [](const Run& r) { return r.kind == RunKind::simulated; });
  const Simulator simulator = simulating ? find_simulator() : Simulator{};
  if (simulating && !fs::exists(paths.sim_clock))
    throw UsageError("libsim_clock.so is not built (" + paths.sim_clock.string() + ")", "run 'make build'");
  nlohmann::json workloads_meta = nlohmann::json::object();  // what the figures need to know of each
  for (const Workload& w : workloads)
    workloads_meta[w.name] = {{"family", w.family}, {"work", w.work_per_thread ? "per-thread" : "total"}};
  nlohmann::json plan_keys = nlohmann::json::array();
  for (const Run& run : plan) plan_keys.push_back(run.key());  // the whole plan, also in a shard's folder
  const Shard shard = options.shard.empty() ? Shard{} : parse_shard(options.shard);
  plan = shard_of(plan, shard);
  // (A folder of an older schema keyed its runs without their kind: not compared.)
  // The same runs, in whatever order (a folder started before the plan went
  // workload by workload resumes in the new order).
  auto sorted_keys = [](const nlohmann::json& keys) {
    std::vector<std::string> v;
    for (const auto& k : keys) v.push_back(k.is_string() ? k.get<std::string>() : k.dump());
    std::sort(v.begin(), v.end());
    return v;
  };
  if (resuming && saved_meta.value("schema", 0) == kResultsSchema && sorted_keys(saved_meta["plan"]) != sorted_keys(plan_keys))
    throw UsageError("the runs this sweep would make now differ from the plan its meta.json recorded (its registries "
                     "or its meta.json changed since it started)",
                     "restore them, or start a new sweep");

  if (options.dry_run) {
    // Resuming: only the runs still to make.
    std::set<std::string> recorded;
    if (resuming) {
      const ResultsFolder reopened = ResultsFolder::reopen(options.resume);  // a torn last row cut off
      check_recorded_runs(options.resume, plan, options);
      recorded = reopened.completed_keys();
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
        for (const auto& a : simulated_arguments("<folder>/simulated/" + std::to_string(run.id) + ".callgrind",
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
    if (meta.contains("allocators") && meta["allocators"] != allocators_now)
      std::cerr << "warning: allocator libraries or versions changed since this sweep started; meta.json keeps both\n";
    meta["resumed"].push_back({{"at", timestamp("%Y-%m-%dT%H:%M:%S%z")},
                               {"command_line", options.command_line},
                               {"allocators", allocators_now},
                               {"machine_warnings", warnings}});
  } else {
    meta = {{"schema", kResultsSchema},
            {"command_line", options.command_line},
            {"started", timestamp("%Y-%m-%dT%H:%M:%S%z")},
            {"options", options},
            {"plan", plan_keys},
            {"shard", shard.whole() ? nlohmann::json(nullptr)
                                    : nlohmann::json{{"index", shard.index}, {"count", shard.count}, {"runs", plan.size()}}},
            {"machine", describe_machine(paths.source)},
            {"machine_warnings", warnings},
            {"inherited_environment", inherited_tuning()},
            {"memprof", !options.profiled() ? "" : paths.memprof.string()},
            {"simulator", !simulating ? nlohmann::json(nullptr)
                                      : nlohmann::json{{"valgrind", simulator.valgrind}, {"version", simulator.version},
                                                       {"hwcaps", simulator.hwcaps}, {"identity", simulator.identity()}}},
            {"allocators", allocators_now},
            {"workloads", workloads_meta}};
  }
  // A new folder gets meta.json first: a folder left by a failure can always be resumed.
  ResultsFolder folder = resuming ? ResultsFolder::reopen(dir) : ResultsFolder::create(dir, meta);
  if (resuming) check_recorded_runs(dir, plan, options);  // once a torn last row is cut off
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
  int finished = 0;
  bool all_ok = true;
  bool stopped = false;
  // Runs one planned run and records it; false when the sweep is interrupted.
  auto execute = [&](const Run& run) {
    if (interrupted()) return false;
    // What the run is run with beyond its plan: the child's arguments, the
    // allocator's build and the variables that tune it.
    auto setting_of = [&](const std::vector<std::string>& env) {
      return RunSetting{shell_line(child_arguments(run, options)), libraries[run.allocator.name],
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
    progress.starting(run, finished);
    Launch launch;
    launch.program = (paths.build / run.workload.binary).string();
    launch.args = child_arguments(run, options);
    launch.env = child_environment(run, options, paths);
    if (run.kind == RunKind::profiled && !options.callsites.empty()) {
      std::filesystem::create_directories(dir / "callsites");
      launch.env.push_back("MEMPROF_SAMPLE_BYTES=" + options.callsites);
      launch.env.push_back("MEMPROF_CALLSITES=" + (dir / "callsites" / (std::to_string(run.id) + ".txt")).string());
    }
    launch.log_path = folder.log_path(run).string();
    launch.timeout_seconds = options.timeout_seconds;
    std::string simulated_out;
    if (run.kind == RunKind::simulated) {
      // valgrind in front; the program's own command after its options. About
      // 50 times slower than natively: the timeout grows with it.
      std::filesystem::create_directories(dir / "simulated");
      simulated_out = (dir / "simulated" / (std::to_string(run.id) + ".callgrind")).string();
      launch.env.push_back(simulated_padding(launch.env, launch.program, launch.args));
      launch.args = simulated_arguments(simulated_out, !run.workload.contract, launch.program, launch.args);
      launch.program = simulator.valgrind;
      launch.fixed_addresses = true;
      launch.timeout_seconds = options.timeout_seconds * kSimulatedTimeoutFactor;
    }
    Finished f = executor.run(launch);
    if (f.interrupted) return false;  // not recorded: --resume runs it again
    Status status = status_of(f);
    if (f.start_failed) std::cerr << "error: " << f.error << "\n";
    Records records = parse_records(f.records);
    std::string simulation_problem;
    if (status == Status::ok && run.kind == RunKind::simulated) {
      records.simulated = read_simulation(simulated_out, simulation_problem);
      if (simulation_problem.empty()) records.simulated[keys::sim_setup] = simulator.identity();
    }
    if (status == Status::ok) {
      std::string problem = simulation_problem.empty() ? measurement_problem(run, records, launch.log_path)
                                                       : simulation_problem;
      if (!problem.empty()) {
        status = Status::failed;
        records.metrics["failure"] = "\"" + problem + "\"";
        std::cerr << describe(run) << ": " << problem << "\n";
      }
    }
    folder.append(run, setting_of(launch.env), status, f, records);
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
    if (options.precision > 0) {
      const auto at = std::find(workload_order.begin(), workload_order.end(), run.workload.name);
      const double share = double(at - workload_order.begin() + 1) / double(workload_order.size());
      add_rounds_for_precision(options, plan, run.workload.name, share, dir, next_id, sweep_start, progress, execute,
                               stopped, precision);
    }
    if (stopped || workload_order.size() < 2) continue;  // one workload: its table comes with the bottom line
    progress.pause();
    print_workload_tables(dir, run.workload.name, out, options.wide);
    printed.insert(run.workload.name);
  }
  if (options.precision > 0) meta["precision"] = precision_meta(options, precision);
  progress.done();
  meta["finished"] = timestamp("%Y-%m-%dT%H:%M:%S%z");
  meta["interrupted"] = stopped;
  const auto [busy, measured] = busy_runs_of(dir);
  meta["busy_runs"] = busy;
  meta["runs_with_machine_state"] = measured;
  folder.write_meta(meta);
  write_summary(dir);
  if (std::size_t n = write_callsites(dir)) out << "call sites of " << n << " profiled run(s): " << (dir / "callsites.csv").string() << "\n";
  print_ranking(dir, out, options.wide, printed);
  out << "\nresults: "
      << wrap_words(dir.string() + "  (runs.csv, summary.csv, meta.json, series.csv, scopes.csv, logs/)",
                    kTerminalWidth - 9, 9)
      << "\n";
  if (stopped) {
    std::cerr << "interrupted: " << finished << " run(s) recorded; finish with: bench --resume " << dir.string() << "\n";
    return 130;
  }
  return all_ok ? 0 : 1;
}

}  // namespace allocstamp
