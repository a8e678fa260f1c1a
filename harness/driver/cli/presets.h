// presets.h — named matrices read from workloads/presets.json: `bench --preset NAME`,
// and the default job that `bench` runs with no arguments. A preset only fills in
// what the command line and the ALLOCSTAMP_* variables left unset.
#pragma once
#include <filesystem>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "model/options.h"

namespace allocstamp {

struct Preset {
  std::string name;
  std::string description;
  std::vector<std::string> allocators, workloads;
  std::vector<int> threads;
  std::string size, tm, profile;
  int reps = 0;       // 0: not set by the preset
  int profile_reps = -1;  // -1: not set
  // Per workload: its size (instead of `size`) and more arguments for its
  // program, so each runs long enough to time (`sizes`, `args`).
  std::map<std::string, std::string> sizes;
  std::map<std::string, std::vector<std::string>> args;
  int series = -1;    // -1: not set; 0 / 1: --no-series / --series
  double timeout_seconds = 0;  // 0: not set
  double precision = 0;        // 0: not set (--precision)
  int max_reps = 0;            // 0: not set
  double budget_minutes = 0;   // 0: not set
  bool plot = false;  // draw the figures and the report when the sweep ends
  bool simulate = false;          // simulated runs too (--simulate)
  int simulate_reps = -1;         // -1: not set
  std::vector<int> simulate_threads;  // empty: not set
  std::vector<std::string> simulate_workloads;  // empty: not set
};

// Throws UsageError for an unreadable file, bad JSON, a newer schema or a bad value.
std::vector<Preset> load_presets(const std::filesystem::path& file);
const Preset& find_preset(const std::vector<Preset>& presets, const std::string& name);

// Sets each option the preset names unless it was typed on the command line or
// comes from its ALLOCSTAMP_* variable.
void apply_preset(const Preset& preset, Options& options);

// The preset a results folder's sweep ran (from its meta.json; "" for none or
// an unreadable file: --resume reports those itself).
std::string preset_of_results(const std::filesystem::path& dir);

// The preset a sweep runs under: --preset, or "default" when nothing was chosen
// to run (so `bench --dry-run` shows the default job and `bench --reps=3`
// shortens it). Names it on `out` unless it is a dry run. (A resumed sweep's
// preset is its folder's: commands/run_resume.cpp resume_options.)
void choose_preset(Options& options, const std::filesystem::path& presets_file, std::ostream& out);

// For `bench --list`.
void print_presets(const std::vector<Preset>& presets, std::ostream& out);

}  // namespace allocstamp
