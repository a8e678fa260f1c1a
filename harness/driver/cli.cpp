// cli.cpp — the bench command line with CLI11: one table of flags, each with an
// ALLOCSTAMP_* fallback, help text with examples, and validation that turns
// every bad value into a UsageError before anything runs.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <filesystem>

#include "errors.h"
#include "options.h"
#include "version.h"

namespace allocstamp {

void to_json(nlohmann::json& j, const Options& o) {
  j = nlohmann::json{{"alloc", o.allocators}, {"workload", o.workloads}, {"threads", o.threads},
                     {"size", o.size},        {"reps", o.reps},           {"tm", o.tm},
                     {"timeout", o.timeout_seconds}, {"no_profile", o.no_profile}, {"profile", o.profile}, {"series", o.series},
                     {"shuffle", o.shuffle},  {"seed", o.seed},           {"registry", o.registries},
                     {"workloads_file", o.workload_files}};
}

void from_json(const nlohmann::json& j, Options& o) {
  o.allocators = j.at("alloc").get<std::vector<std::string>>();
  o.workloads = j.at("workload").get<std::vector<std::string>>();
  o.threads = j.at("threads").get<std::vector<int>>();
  o.size = j.at("size").get<std::string>();
  o.reps = j.at("reps").get<int>();
  o.tm = j.at("tm").get<std::string>();
  o.timeout_seconds = j.at("timeout").get<double>();
  o.no_profile = j.at("no_profile").get<bool>();
  o.profile = j.value("profile", o.no_profile ? std::string("none") : std::string("full"));
  o.series = j.at("series").get<bool>();
  o.shuffle = j.at("shuffle").get<bool>();
  o.seed = j.at("seed").get<unsigned>();
  o.registries = j.value("registry", std::vector<std::string>{});
  o.workload_files = j.value("workloads_file", std::vector<std::string>{});
}

namespace {

const char* kFooter = R"(Examples:
  bench --list                                   what is installed
  bench --alloc=tcmalloc,jemalloc --workload=vacation     vacation-low and vacation-high
  bench --alloc=all --workload=churn --threads=1,2 --reps=5 --size=small
  bench --alloc=/opt/my/libmalloc.so --workload=churn     any allocator by path
  bench --resume results/runs/20261121-101500            finish an interrupted sweep
  bench summarize results/latest                          recompute summary.csv

Each run is a fresh process: LD_PRELOAD=libmemprof.so:<allocator>. Results go to
results/runs/<timestamp>/ (runs.csv, series.csv, meta.json, summary.csv, logs/),
and results/latest points at the newest. Every flag also reads an ALLOCSTAMP_*
variable, e.g. ALLOCSTAMP_REPS=10.)";

}  // namespace

bool parse_command_line(int argc, char** argv, Options& o) {
  CLI::App app{"bench — how the choice of memory allocator changes the speed and the memory of programs", "bench"};
  app.footer(kFooter);
  app.set_version_flag("--version", std::string("allocstamp ") + kVersion);
  app.option_defaults()->always_capture_default();

  app.add_option("--alloc", o.allocators, "Allocators: names from --list, paths to .so files, or all")
      ->delimiter(',')->envname("ALLOCSTAMP_ALLOC");
  app.add_option("--workload", o.workloads, "Workloads: names from --list, a family (stamp, intset), a stem (vacation), or all")
      ->delimiter(',')->envname("ALLOCSTAMP_WORKLOAD");
  app.add_option("--threads", o.threads, "Thread counts, e.g. 1,2")
      ->delimiter(',')->envname("ALLOCSTAMP_THREADS")->check(CLI::Range(1, 1024));
  app.add_option("--size", o.size, "Input size: tiny (tests), small (STAMP's simulator inputs), medium, large")
      ->envname("ALLOCSTAMP_SIZE")->check(CLI::IsMember({"tiny", "small", "medium", "large"}));
  app.add_option("--reps", o.reps, "Repetitions of every cell")->envname("ALLOCSTAMP_REPS")->check(CLI::Range(1, 1000));
  app.add_option("--tm", o.tm, "TM method for transactional workloads: ml_wt, gl_wt, serialirr, lock, seq")
      ->envname("ALLOCSTAMP_TM")->check(CLI::IsMember({"ml_wt", "gl_wt", "serialirr", "lock", "seq"}));
  app.add_option("--out", o.out, "Results folder (default results/runs/<timestamp>)")->envname("ALLOCSTAMP_OUT");
  app.add_option("--timeout", o.timeout_seconds, "Seconds a run may take before it is stopped")
      ->envname("ALLOCSTAMP_TIMEOUT")->check(CLI::PositiveNumber);
  app.add_flag("--no-profile", o.no_profile, "Preload the allocator only, without memprof (the timing baseline)")
      ->envname("ALLOCSTAMP_NO_PROFILE");
  app.add_option("--profile", o.profile,
                 "What memprof measures: full (heap, peaks, usable bytes), counts (counts and bytes only: "
                 "much cheaper, for timing runs), none (same as --no-profile)")
      ->envname("ALLOCSTAMP_PROFILE")->check(CLI::IsMember({"full", "counts", "none"}));
  app.add_flag("--series,!--no-series", o.series, "Record memprof's time series into series.csv (default on)")
      ->envname("ALLOCSTAMP_SERIES");
  app.add_flag("--shuffle", o.shuffle, "Shuffle the order of runs within each repetition")->envname("ALLOCSTAMP_SHUFFLE");
  app.add_option("--seed", o.seed, "Seed for --shuffle and for the workloads' inputs")->envname("ALLOCSTAMP_SEED");
  app.add_flag("--dry-run", o.dry_run, "Print the runs that would be made, run nothing");
  app.add_flag("--list", o.list, "List allocators and workloads, installed or not, with versions");
  app.add_flag("--columns", o.columns, "Print the columns of runs.csv with their meaning (Markdown)");
  app.add_option("--resume", o.resume, "Complete the runs missing from an earlier results folder")
      ->check(CLI::ExistingDirectory);
  app.add_option("--registry", o.registries, "More allocators from a JSON file (shape of allocators/allocators.json)")
      ->envname("ALLOCSTAMP_REGISTRY")->check(CLI::ExistingFile);
  app.add_option("--workloads", o.workload_files, "More workloads from a JSON file (shape of workloads/workloads.json)")
      ->envname("ALLOCSTAMP_WORKLOADS")->check(CLI::ExistingFile);
  CLI::App* summarize = app.add_subcommand("summarize", "Recompute summary.csv of a results folder");
  summarize->add_option("dir", o.summarize, "Results folder")->required()->check(CLI::ExistingDirectory);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    app.exit(e);
    return false;
  } catch (const CLI::CallForVersion& e) {
    app.exit(e);
    return false;
  } catch (const CLI::ParseError& e) {
    throw UsageError(e.what(), "see 'bench --help'");
  }
  for (int i = 0; i < argc; ++i) o.command_line.emplace_back(argv[i]);
  if (o.profile == "none") o.no_profile = true;
  if (o.no_profile) o.profile = "none";
  // Flags typed on the command line (ALLOCSTAMP_* variables are ambient, not given).
  for (int i = 1; i < argc; ++i) {
    std::string word = argv[i];
    if (word.rfind("--", 0) == 0) o.given.push_back(word.substr(0, word.find('=')));
  }
  // Saved in meta.json for --resume, which may run from another directory.
  auto absolute = [](std::string& path) { path = std::filesystem::absolute(path).string(); };
  for (auto& f : o.registries) absolute(f);
  for (auto& f : o.workload_files) absolute(f);
  for (auto& a : o.allocators)
    if (a.find('/') != std::string::npos) absolute(a);
  std::sort(o.threads.begin(), o.threads.end());
  o.threads.erase(std::unique(o.threads.begin(), o.threads.end()), o.threads.end());
  return true;
}

}  // namespace allocstamp
