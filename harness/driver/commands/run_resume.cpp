// run_resume.cpp — a resumed sweep's options and runs, checked (run_resume.h).
#include "commands/run_resume.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "cli/presets.h"
#include "key_names.h"
#include "keys.h"
#include "meta_names.h"
#include "model/errors.h"
#include "results/csv.h"
#include "results/meta.h"
#include "results/results_folder.h"
#include "results/runs.h"
#include "run/environment.h"

namespace allocstamp {

namespace fs = std::filesystem;

namespace {

// The allocator tunings bench passes from its own environment to every child
// (MALLOC_CONF, TCMALLOC_*, ...): a resume from a shell with others would
// make the rest of the sweep under another setup, each cell split in two
// ("jemalloc" and "jemalloc #2"). Refused, naming both.
void check_inherited_tuning(const Meta& saved, const fs::path& dir) {
  // (A folder older than the record says nothing: not refused.)
  if (!saved.doc.contains(meta::inherited_environment) || !saved.doc[meta::inherited_environment].is_array()) return;
  const std::vector<std::string> found = inherited_tuning();
  const std::set<std::string> then = saved.inherited_tunings(), now(found.begin(), found.end());
  if (then == now) return;
  throw UsageError("this sweep started with the allocator tunings " + tunings_text(then) + " in bench's environment (" +
                       dir.string() + "/meta.json), the resume has " + tunings_text(now) +
                       ": the runs left would be made under another setup",
                   "resume from a shell with the same ones (export or unset them), or start a new sweep");
}

}  // namespace

nlohmann::json resume_options(Options& options, const fs::path& presets_file) {
  for (const auto& flag : options.given)
    if (flag != "--resume" && flag != "--dry-run" && flag != "--no-plot" && flag != "--registry" &&
        flag != "--workloads" && flag != "--redo-failed" && flag != "--wide" && flag != "--per-comparison")
      throw UsageError(flag + " cannot be combined with --resume", "a resumed sweep keeps the options saved in its meta.json");
  fs::path dir = options.resume;
  const Meta saved_folder = read_meta(dir, MetaMissing::refuse);
  nlohmann::json saved_meta = saved_folder.doc;
  if (!saved_meta.contains(meta::options))
    throw UsageError(dir.string() + "/meta.json is damaged", "start a new sweep");
  Options saved;
  try {
    saved = saved_meta[meta::options].get<Options>();
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
  const int meta_schema = saved_meta.value(meta::schema, 0);
  if (meta_schema != runs_schema)
    throw UsageError(dir.string() + ": meta.json says schema " + std::to_string(meta_schema) + ", runs.csv schema " +
                         std::to_string(runs_schema) + ": the folder was edited",
                     "restore its meta.json, or start a new sweep");
  if (meta_schema == kResultsSchema && (!saved_meta.contains(meta::plan) || !saved_meta[meta::plan].is_array()))
    throw UsageError(dir.string() + "/meta.json records no plan: which runs the sweep was to make is unknown",
                     "restore its meta.json, or start a new sweep");
  // Every option as the sweep recorded it (a plan's keys do not show them all:
  // the profile's mode, the timeout, the seed).
  check_options_seal(saved_meta, dir);
  check_inherited_tuning(saved_folder, dir);
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
  saved.redo_failed = options.redo_failed;
  saved.no_plot = saved.no_plot || options.no_plot;
  // Whether it ends with the figures is its preset's word (meta.json keeps
  // the preset's name, not what it asked for).
  if (!saved.preset.empty())
    for (const Preset& p : load_presets(presets_file))
      if (p.name == saved.preset) saved.plot_after = p.plot && !saved.no_plot;
  saved.command_line = options.command_line;
  // How the tables and figures show the results (summary.csv's standings are
  // family-corrected either way): the resume's own say.
  saved.wide = options.wide;
  saved.per_comparison = options.per_comparison;
  options = saved;
  options.out = dir.string();
  return saved_meta;
}

void check_resumed_plan(const nlohmann::json& saved_meta, const nlohmann::json& plan_keys) {
  // (A folder of an older schema keyed its runs without their kind: not compared.)
  // The same runs, in whatever order (a folder started before the plan went
  // workload by workload resumes in the new order).
  auto sorted_keys = [](const nlohmann::json& keys) {
    std::vector<std::string> v;
    for (const auto& k : keys) v.push_back(k.is_string() ? k.get<std::string>() : k.dump());
    std::sort(v.begin(), v.end());
    return v;
  };
  if (saved_meta.value(meta::schema, 0) == kResultsSchema &&
      sorted_keys(saved_meta[meta::plan]) != sorted_keys(plan_keys))
    throw UsageError("the runs this sweep would make now differ from the plan its meta.json recorded (its registries "
                     "or its meta.json changed since it started)",
                     "restore them, or start a new sweep");
}

// A resumed folder's recorded runs are its plan's: each under the id the plan
// gives it, run with the arguments the plan gives it now. An edit of meta.json
// that changes both its options and its plan (or an option the plan's keys do
// not show, such as the seed) would otherwise mix two sweeps in one folder,
// or give two runs one id. A timed run the plan does not list is one a
// --precision round added.
ResumedRuns resumed_runs(const fs::path& dir, const RunsTable& t, const std::vector<Run>& plan, const Options& options) {
  std::map<std::string, const Run*> by_key;
  for (const Run& r : plan) by_key[r.key()] = &r;
  const std::string fix = "restore the folder's meta.json, or start a new sweep";
  ResumedRuns left;
  for (const CsvRow& row : t.rows) {
    const std::string key = t.run_key(row);
    const std::string id = t.text(row, keys::run_id);
    auto it = by_key.find(key);
    if (it == by_key.end()) {
      if (options.precision > 0 && t.kind(row) == RunKind::timed) {
        left.kept.insert(key);
        continue;
      }
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
    if (const std::string now = recorded_arguments(run, options); !args.empty() && args != now)
      throw UsageError(dir.string() + "/runs.csv: run " + id + " ran with '" + args + "', and its options give '" +
                           now + "' now: its meta.json was edited",
                       fix);
    const Status status = t.status(row);
    if (status == Status::skipped && run.allocator.installed) left.retry.insert(key);
    else if (options.redo_failed && status != Status::ok && status != Status::skipped) left.redo.insert(key);
    else left.kept.insert(key);
  }
  return left;
}

}  // namespace allocstamp
