// options.h — everything a bench invocation asks for, after parsing and
// validation; the same struct is saved in meta.json so --resume can replay it.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace allocstamp {

struct Options {
  std::vector<std::string> allocators;  // names or paths; "all" expanded later
  std::vector<std::string> workloads;   // names; "all" expanded later
  std::vector<int> threads{1};
  std::string size = "small";
  int reps = 3;
  std::string tm = "ml_wt";
  std::string out;                      // results folder; empty: results/runs/<timestamp>
  double timeout_seconds = 600;
  bool no_profile = false;             // --no-profile or --profile=none
  std::string profile = "full";         // full, counts (MEMPROF_HEAP=0), none
  bool series = true;
  bool shuffle = false;
  unsigned seed = 1;
  bool dry_run = false;
  bool list = false;
  bool columns = false;                 // print runs.csv's columns (Markdown)
  std::string resume;                   // results folder to complete
  std::vector<std::string> registries;  // more allocator files
  std::vector<std::string> workload_files;
  std::string summarize;                // `bench summarize DIR`
  std::string preset;                   // --preset NAME (presets.h); `bench` alone runs "default"
  bool plot_after = false;              // the preset asks for figures and the report at the end
  bool plot = false;                    // `bench plot [DIR]` (plot.h): figures and the report
  std::string plot_dir;                 // empty: results/latest
  // `bench check` (check.h): the regression gate
  bool check = false;
  std::string check_baseline, check_current;  // results folders or runs.csv files
  std::vector<std::string> check_thresholds;  // metric=percent, over the file's
  std::string check_thresholds_file;          // JSON {"metric": percent}
  double check_alpha = 0.05;
  bool check_deterministic_only = false;
  bool check_fail_on_missing = false;
  bool check_fail_on_change = false;
  bool check_all = false;                     // print ok rows too
  std::string check_csv;                      // every row as CSV; "-": stdout
  std::vector<std::string> command_line;
  std::vector<std::string> given;       // flags typed on the command line
};

void to_json(nlohmann::json& j, const Options& o);
void from_json(const nlohmann::json& j, Options& o);

// Parses the command line (flags fall back to ALLOCSTAMP_* variables). Returns
// false when --help or --version was answered; throws UsageError on bad input.
bool parse_command_line(int argc, char** argv, Options& options);

}  // namespace allocstamp
