// sweep.cpp — the loop. Everything that can be wrong with the command line is
// checked before the results folder exists, so a bad invocation leaves nothing.
#include "sweep.h"

#include <chrono>
#include <ctime>
#include <iostream>

#include "environment.h"
#include "errors.h"
#include "machine.h"
#include "plan.h"
#include "progress.h"
#include "ranking.h"
#include "records.h"
#include "registry.h"
#include "results.h"

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

}  // namespace

int run_sweep(Options options, const Paths& paths, Executor& executor, std::ostream& out) {
  const bool resuming = !options.resume.empty();
  if (resuming) {
    fs::path dir = options.resume;
    std::ifstream in(dir / "meta.json");
    if (!in) throw UsageError(dir.string() + " has no meta.json", "--resume takes a folder bench wrote");
    nlohmann::json meta = nlohmann::json::parse(in, nullptr, false);
    if (meta.is_discarded() || !meta.contains("options")) throw UsageError(dir.string() + "/meta.json is damaged", "start a new sweep");
    if (meta.value("schema", 0) > kResultsSchema) throw UsageError("the folder is from a newer bench", "update allocstamp");
    Options saved = meta["options"].get<Options>();
    saved.resume = options.resume;
    saved.command_line = options.command_line;
    options = saved;
    options.out = dir.string();
  }

  Catalog catalog = load_catalog(options, paths);
  std::vector<Allocator> allocators = select_allocators(options, catalog);
  std::vector<Workload> workloads = select_workloads(options, catalog, paths);
  if (!options.no_profile && !fs::exists(paths.memprof))
    throw UsageError("libmemprof.so is not built (" + paths.memprof.string() + ")", "run 'make build'");
  std::vector<Run> plan = make_plan(options, workloads, allocators);

  if (options.dry_run) {
    for (const Run& run : plan) {
      out << run.id << "  " << describe(run) << "\n    ";
      for (const auto& e : child_environment(run, options, paths))
        if (e.rfind("LD_PRELOAD=", 0) == 0 || e.rfind("ITM_", 0) == 0) out << e << " ";
      out << (paths.build / run.workload.binary).string();
      for (const auto& a : child_arguments(run, options)) out << " " << a;
      out << "\n";
    }
    out << plan.size() << " runs; nothing was run (--dry-run)\n";
    return 0;
  }

  fs::path dir = options.out.empty() ? paths.source / "results" / "runs" / timestamp("%Y%m%d-%H%M%S") : fs::path(options.out);
  ResultsFolder folder = resuming ? ResultsFolder::reopen(dir) : ResultsFolder::create(dir);
  std::set<std::string> done = resuming ? folder.completed_keys() : std::set<std::string>{};
  nlohmann::json meta = {{"schema", kResultsSchema},
                         {"command_line", options.command_line},
                         {"started", timestamp("%Y-%m-%dT%H:%M:%S%z")},
                         {"options", options},
                         {"machine", describe_machine(paths.source)},
                         {"memprof", options.no_profile ? "" : paths.memprof.string()},
                         {"allocators", allocator_meta(allocators)}};
  folder.write_meta(meta);
  if (options.out.empty()) point_latest_at(paths, dir);  // an explicit --out leaves results/latest alone
  for (const auto& warning : machine_warnings()) std::cerr << "warning: " << warning << "\n";

  install_interrupt_handlers();
  int to_run = 0;
  for (const Run& run : plan) to_run += done.count(run.key()) ? 0 : 1;
  if (resuming) std::cerr << "resuming " << dir.string() << ": " << to_run << " of " << plan.size() << " runs left\n";
  Progress progress(to_run);
  int finished = 0;
  bool all_ok = true;
  bool stopped = false;
  for (const Run& run : plan) {
    if (done.count(run.key())) continue;
    if (interrupted()) {
      stopped = true;
      break;
    }
    if (!run.allocator.installed) {
      folder.append_skipped(run, "allocator not installed: apt-get install " + run.allocator.package);
      progress.finished(run, "skipped", 0);
      ++finished;
      continue;
    }
    progress.starting(run, finished);
    Launch launch;
    launch.program = (paths.build / run.workload.binary).string();
    launch.args = child_arguments(run, options);
    launch.env = child_environment(run, options, paths);
    launch.log_path = folder.log_path(run).string();
    launch.timeout_seconds = options.timeout_seconds;
    Finished f = executor.run(launch);
    if (f.interrupted) {  // not recorded: --resume runs it again
      stopped = true;
      break;
    }
    std::string status = status_of(f);
    if (f.start_failed) std::cerr << "error: " << f.error << "\n";
    folder.append(run, status, f, parse_records(f.records));
    all_ok = all_ok && status == "ok";
    progress.finished(run, status, double(f.wall_ns) / 1e9);
    ++finished;
  }
  progress.done();
  meta["finished"] = timestamp("%Y-%m-%dT%H:%M:%S%z");
  meta["interrupted"] = stopped;
  folder.write_meta(meta);
  write_summary(dir);
  print_ranking(dir, out);
  out << "\nresults: " << dir.string() << "  (runs.csv, summary.csv, meta.json, series.csv, logs/)\n";
  if (stopped) {
    std::cerr << "interrupted: " << finished << " run(s) recorded; finish with: bench --resume " << dir.string() << "\n";
    return 130;
  }
  return all_ok ? 0 : 1;
}

}  // namespace allocstamp
