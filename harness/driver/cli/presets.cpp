// presets.cpp — reading workloads/presets.json with nlohmann-json, validating each
// value the way the flags are validated, and laying a preset under the options.
#include "cli/presets.h"

#include "cli/spelling.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include <fmt/printf.h>
#include <nlohmann/json.hpp>

#include "model/errors.h"
#include "model/fields.h"
#include "cli/registry.h"

namespace allocstamp {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

Preset preset_from(const json& entry, const fs::path& file) {
  Preset p;
  auto where = [&](const std::string& what) { return file.string() + ": preset '" + p.name + "' " + what; };
  if (!entry.is_object() || !entry.contains("name") || !entry["name"].is_string())
    throw UsageError(file.string() + ": a preset lacks its \"name\"", "every preset needs one");
  p.name = entry["name"].get<std::string>();
  if (std::string problem = name_problem(p.name); !problem.empty())
    throw UsageError(file.string() + ": the preset '" + p.name + "': " + problem,
                     "name it with letters, digits and ._+- only");
  try {
    p.description = entry.value("description", std::string());
    p.allocators = entry.value("alloc", std::vector<std::string>{});
    p.workloads = entry.value("workload", std::vector<std::string>{});
    p.threads = entry.value("threads", std::vector<int>{});
    p.size = entry.value("size", std::string());
    p.tm = entry.value("tm", std::string());
    p.profile = entry.value("profile", std::string());
    p.reps = entry.value("reps", 0);
    p.profile_reps = entry.value("profile_reps", -1);
    p.sizes = entry.value("sizes", std::map<std::string, std::string>{});
    p.args = entry.value("args", std::map<std::string, std::vector<std::string>>{});
    p.timeout_seconds = entry.value("timeout", 0.0);
    p.precision = entry.value("precision", 0.0);
    p.max_reps = entry.value("max_reps", 0);
    p.budget_minutes = entry.value("budget", 0.0);
    p.plot = entry.value("plot", false);
    p.simulate = entry.value("simulate", false);
    p.simulate_reps = entry.value("simulate_reps", -1);
    p.simulate_threads = entry.value("simulate_threads", std::vector<int>{});
    p.simulate_workloads = entry.value("simulate_workloads", std::vector<std::string>{});
    if (entry.contains("series")) p.series = entry["series"].get<bool>() ? 1 : 0;
  } catch (const json::exception& e) {
    throw UsageError(where(std::string("has a value of the wrong type (") + e.what() + ")"), "fix the file");
  }
  const std::vector<std::string> sizes{"tiny", "small", "medium", "large"};
  if (!p.size.empty() && std::find(sizes.begin(), sizes.end(), p.size) == sizes.end())
    throw UsageError(where("has size '" + p.size + "'"), "use tiny, small, medium or large");
  for (const auto& [workload, size] : p.sizes)
    if (std::find(sizes.begin(), sizes.end(), size) == sizes.end())
      throw UsageError(where("has size '" + size + "' for " + workload), "use tiny, small, medium or large");
  const std::vector<std::string> profiles{"full", "counts", "none"};
  if (!p.profile.empty() && std::find(profiles.begin(), profiles.end(), p.profile) == profiles.end())
    throw UsageError(where("has profile '" + p.profile + "'"), "use full, counts or none");
  if (p.timeout_seconds < 0) throw UsageError(where("has a negative timeout"), "give seconds, or leave it out");
  if (p.precision < 0 || p.precision > 100 || p.max_reps < 0 || p.budget_minutes < 0)
    throw UsageError(where("has a precision outside 0-100, or a negative max_reps or budget"), "fix the file");
  if (p.profile_reps < -1 || p.simulate_reps < -1)
    throw UsageError(where("has a negative profile_reps or simulate_reps"), "give 0 or more, or leave it out");
  if (std::any_of(p.simulate_threads.begin(), p.simulate_threads.end(), [](int t) { return t < 1; }))
    throw UsageError(where("has a simulate_threads count below 1"), "fix the file");
  if (p.reps < 0 || std::any_of(p.threads.begin(), p.threads.end(), [](int t) { return t < 1; }))
    throw UsageError(where("has a repetition or thread count below 1"), "fix the file");
  return p;
}

// Typed on the command line, or set through its ALLOCSTAMP_* variable (an
// empty one sets nothing: CLI11 takes no value from it).
bool chosen(const Options& o, const std::string& flag, const char* variable) {
  const char* value = std::getenv(variable);
  return std::find(o.given.begin(), o.given.end(), flag) != o.given.end() || (value != nullptr && *value != '\0');
}

// The flags (typed, or through their variables) that change which runs a
// preset makes or what it leaves behind: with any of them, the preset's
// description (the default job's "about thirty minutes") is not what runs.
std::vector<std::string> narrowing_flags(const Options& o) {
  static const std::pair<const char*, const char*> flags[] = {
      {"--alloc", "ALLOCSTAMP_ALLOC"},         {"--workload", "ALLOCSTAMP_WORKLOAD"},
      {"--threads", "ALLOCSTAMP_THREADS"},     {"--size", "ALLOCSTAMP_SIZE"},
      {"--tm", "ALLOCSTAMP_TM"},               {"--reps", "ALLOCSTAMP_REPS"},
      {"--profile-reps", "ALLOCSTAMP_PROFILE_REPS"}, {"--profile", "ALLOCSTAMP_PROFILE"},
      {"--no-profile", "ALLOCSTAMP_NO_PROFILE"}, {"--series", "ALLOCSTAMP_SERIES"},
      {"--no-series", "ALLOCSTAMP_SERIES"},    {"--shard", "ALLOCSTAMP_SHARD"},
      {"--registry", "ALLOCSTAMP_REGISTRY"},   {"--no-plot", "ALLOCSTAMP_NO_PLOT"},
      {"--simulate", "ALLOCSTAMP_SIMULATE"},   {"--no-simulate", "ALLOCSTAMP_SIMULATE"},
      {"--simulate-reps", "ALLOCSTAMP_SIMULATE_REPS"},
      {"--simulate-threads", "ALLOCSTAMP_SIMULATE_THREADS"}, {"--simulate-workloads", "ALLOCSTAMP_SIMULATE_WORKLOADS"}};
  std::vector<std::string> given;  // a typed flag by its name, a variable by its own
  for (const auto& [flag, variable] : flags) {
    const std::string name = std::find(o.given.begin(), o.given.end(), flag) != o.given.end() ? flag
                             : std::getenv(variable)                                        ? variable
                                                                                            : "";
    if (!name.empty() && std::find(given.begin(), given.end(), name) == given.end()) given.push_back(name);
  }
  return given;
}

}  // namespace

std::vector<Preset> load_presets(const fs::path& file) {
  json doc = read_data_file(file, "presets", "workloads/presets.json");
  std::vector<Preset> presets;
  for (const json& entry : doc["presets"]) presets.push_back(preset_from(entry, file));
  return presets;
}

const Preset& find_preset(const std::vector<Preset>& presets, const std::string& name) {
  for (const Preset& p : presets)
    if (p.name == name) return p;
  std::string names;
  std::vector<std::string> list;
  for (const Preset& p : presets) names += (names.empty() ? "" : ", ") + p.name, list.push_back(p.name);
  throw UsageError("unknown preset '" + name + "'", did_you_mean(name, list) + "choose from: " + names);
}

void choose_preset(Options& options, const fs::path& presets_file, std::ostream& out) {
  // One set of defaults: without --preset the flags narrow the default job
  // (its allocators, threads, repetitions, sizes and figures), they do not
  // switch to other defaults.
  if (options.preset.empty() && !options.own_job) options.preset = "default";
  // A sweep a subcommand sets up whole (bench trace replay) takes no preset:
  // a preset's workloads would replace its own. Typed, that is refused;
  // through ALLOCSTAMP_PRESET, left out.
  if (options.own_job && !options.preset.empty()) {
    if (std::find(options.given.begin(), options.given.end(), "--preset") != options.given.end())
      throw UsageError("--preset does not go with bench trace replay: the replay is its own sweep (the trace under each "
                       "allocator)",
                       "leave out --preset; --alloc and --reps choose its runs");
    options.preset.clear();
  }
  if (options.preset.empty()) return;
  const std::vector<Preset> presets = load_presets(presets_file);
  const Preset& preset = find_preset(presets, options.preset);
  apply_preset(preset, options);
  // --size replaces the preset's sizes, and the arguments that go with them:
  // said once the workloads the sweep runs are known (a family, a prefix or
  // a glob names them too: select_workloads).
  if (chosen(options, "--size", "ALLOCSTAMP_SIZE")) options.dropped_preset_args = preset.args;
  if (options.dry_run) return;
  const std::vector<std::string> narrowed = narrowing_flags(options);
  if (narrowed.empty()) {
    out << "preset " << preset.name << ": " << preset.description << "\n";
    return;
  }
  std::string flags;
  for (const std::string& f : narrowed) flags += (flags.empty() ? "" : ", ") + f;
  out << "preset " << preset.name << ", changed by " << flags << " (bench --dry-run lists the runs)\n";
}

void print_presets(const std::vector<Preset>& presets, std::ostream& out) {
  out << fmt::sprintf("\nPresets (workloads/presets.json; bench --preset NAME, flags override; bench alone runs 'default'):\n");
  for (const Preset& p : presets) out << fmt::sprintf("  %-16s %s\n", p.name.c_str(), p.description.c_str());
}

void apply_preset(const Preset& p, Options& o) {
  if (!p.allocators.empty() && !chosen(o, "--alloc", "ALLOCSTAMP_ALLOC")) o.allocators = p.allocators;
  if (!p.workloads.empty() && !chosen(o, "--workload", "ALLOCSTAMP_WORKLOAD")) o.workloads = p.workloads;
  if (!p.threads.empty() && !chosen(o, "--threads", "ALLOCSTAMP_THREADS")) o.threads = p.threads;
  if (!chosen(o, "--size", "ALLOCSTAMP_SIZE")) {  // --size sets every workload's size, the preset's sizes too
    if (!p.size.empty()) o.size = p.size;
    o.workload_sizes = p.sizes;
    o.workload_args = p.args;
  }
  if (!p.tm.empty() && !chosen(o, "--tm", "ALLOCSTAMP_TM")) o.tm = p.tm;
  if (!p.profile.empty() && !chosen(o, "--profile", "ALLOCSTAMP_PROFILE") && !chosen(o, "--no-profile", "ALLOCSTAMP_NO_PROFILE"))
    o.profile = p.profile;
  std::sort(o.threads.begin(), o.threads.end());
  o.threads.erase(std::unique(o.threads.begin(), o.threads.end()), o.threads.end());
  if (p.reps > 0 && !chosen(o, "--reps", "ALLOCSTAMP_REPS")) o.reps = p.reps;
  if (p.profile_reps >= 0 && !chosen(o, "--profile-reps", "ALLOCSTAMP_PROFILE_REPS") &&
      !chosen(o, "--no-profile", "ALLOCSTAMP_NO_PROFILE") && o.profile != "none")
    o.profile_reps = p.profile_reps;
  if (p.timeout_seconds > 0 && !chosen(o, "--timeout", "ALLOCSTAMP_TIMEOUT")) o.timeout_seconds = p.timeout_seconds;
  // A repetition count typed (--reps N) is taken as it is: the preset's
  // precision, which would add repetitions to it, yields to it.
  const bool reps_typed = chosen(o, "--reps", "ALLOCSTAMP_REPS");
  if (p.precision > 0 && !reps_typed && !chosen(o, "--precision", "ALLOCSTAMP_PRECISION")) o.precision = p.precision;
  if (p.max_reps > 0 && !reps_typed && !chosen(o, "--max-reps", "ALLOCSTAMP_MAX_REPS")) o.max_reps = p.max_reps;
  if (p.budget_minutes > 0 && !reps_typed && !chosen(o, "--budget", "ALLOCSTAMP_BUDGET")) o.budget_minutes = p.budget_minutes;
  if (p.series >= 0 && !chosen(o, "--series", "ALLOCSTAMP_SERIES") && !chosen(o, "--no-series", "ALLOCSTAMP_SERIES"))
    o.series = p.series == 1;
  if (p.simulate && !chosen(o, "--simulate", "ALLOCSTAMP_SIMULATE") && !chosen(o, "--no-simulate", "ALLOCSTAMP_SIMULATE"))
    o.simulate = true;
  if (p.simulate_reps >= 0 && !chosen(o, "--simulate-reps", "ALLOCSTAMP_SIMULATE_REPS")) o.simulate_reps = p.simulate_reps;
  if (!p.simulate_threads.empty() && !chosen(o, "--simulate-threads", "ALLOCSTAMP_SIMULATE_THREADS"))
    o.simulate_threads = p.simulate_threads;
  if (!p.simulate_workloads.empty() && !chosen(o, "--simulate-workloads", "ALLOCSTAMP_SIMULATE_WORKLOADS"))
    o.simulate_workloads = p.simulate_workloads;
  o.plot_after = p.plot && !o.no_plot;
}

}  // namespace allocstamp
