// commands/slurm.cpp — `bench slurm [sweep flags] --shards N`: the sweep as a
// Slurm job array. Writes DIR/slurm/array.sbatch (task K runs
// `bench <flags> --shard K/N --out DIR/parts/K` on a node of its own) and
// DIR/slurm/merge.sbatch (after the array, whatever its tasks' fate: merge into
// DIR/merged, summarise, draw the figures); with --submit, submits both
// (the merge with --dependency=afterany on the array) and prints the job ids.
// Slurm schedules; bench only plans, runs and merges.
#include <CLI/CLI.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "cli/numbers.h"
#include "cli/registry.h"
#include "cli/selection.h"
#include "commands/commands.h"
#include "model/errors.h"
#include "model/output_file.h"
#include "plan/plan.h"
#include "plan/shards.h"
#include "model/program_output.h"
#include "model/shell_words.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;

// The sweep's own flags, as typed: the command line without `slurm` and its options.
std::vector<std::string> sweep_flags(const std::vector<std::string>& command_line) {
  static const std::vector<std::string> with_value = {"--shards", "--partition", "--time", "--out", "--account"};
  static const std::vector<std::string> alone = {"--submit", "--exclusive", "--no-exclusive"};
  std::vector<std::string> flags;
  for (std::size_t i = 1; i < command_line.size(); ++i) {
    const std::string& w = command_line[i];
    if (w == "slurm") continue;
    std::string name = w.substr(0, w.find('='));
    if (std::find(alone.begin(), alone.end(), w) != alone.end()) continue;
    if (std::find(with_value.begin(), with_value.end(), name) != with_value.end()) {
      if (w.find('=') == std::string::npos) ++i;  // its value is the next word
      continue;
    }
    flags.push_back(w);
  }
  return flags;
}

// A partition, account or time limit as Slurm spells them: nothing that could
// end an #SBATCH line or a word.
bool slurm_word(const std::string& value) {
  return std::all_of(value.begin(), value.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == ',' || c == ':' || c == '+' ||
           c == '-';
  });
}

// Runs sbatch --parsable SCRIPT [extra] and returns the job id it prints.
std::string submit(const fs::path& script, const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {"sbatch", "--parsable"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back(script.string());
  const ProgramOutput run = program_output(argv, true);
  if (!run.started) throw RunError("cannot run sbatch", "install Slurm's client (apt-get install slurm-client) or submit by hand");
  std::string output = run.out;
  while (!output.empty() && (output.back() == '\n' || output.back() == '\r')) output.pop_back();
  if (run.status != 0 || output.empty() || output.find_first_not_of("0123456789;") != std::string::npos)
    throw RunError("sbatch " + script.string() + " failed: " + output,
                   "check the partition and time limit, or submit the script by hand");
  return output.substr(0, output.find(';'));
}

// An --alloc list with each library path in it absolute (the scripts run
// from the repository); names and variants (BASE:VARIABLE=VALUE) as they are.
std::string absolute_libraries(const std::string& list) {
  std::string out;
  std::istringstream items(list);
  for (std::string item; std::getline(items, item, ',');) {
    // As the sweep reads the list: an item's spaces around it are no part of it.
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    const std::size_t colon = item.find(':'), equals = item.find('=');
    const bool variant = colon != std::string::npos && equals != std::string::npos && colon < equals;
    const bool path = item.find('/') != std::string::npos || item.ends_with(".so") || item.find(".so.") != std::string::npos;
    out += (out.empty() ? "" : ",") + (!variant && path ? fs::absolute(item).lexically_normal().string() : item);
  }
  return out;
}

// The ALLOCSTAMP_* variables of bench's environment, as export lines: the
// tasks run the sweep bench slurm checked, whatever the shell that submits
// the scripts holds. A registry or workloads file is named absolutely (the
// scripts run from the repository).
std::string allocstamp_exports() {
  std::string lines;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const std::size_t eq = entry.find('=');
    if (entry.rfind("ALLOCSTAMP_", 0) != 0 || eq == std::string::npos) continue;
    const std::string name = entry.substr(0, eq);
    // Only a name a shell takes as one (a name may hold any byte but '='):
    // anything else would be a command in the script.
    if (!std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }))
      continue;
    std::string value = entry.substr(eq + 1);
    if ((name == "ALLOCSTAMP_REGISTRY" || name == "ALLOCSTAMP_WORKLOADS") && !value.empty()) {
      std::string files;
      std::istringstream items(value);
      for (std::string item; std::getline(items, item, ',');)
        files += (files.empty() ? "" : ",") + (item.empty() ? item : fs::absolute(item).string());
      value = files;
    }
    if (name == "ALLOCSTAMP_ALLOC") value = absolute_libraries(value);
    lines += "export " + name + "=" + shell_word(value) + "\n";
  }
  return lines;
}

}  // namespace

int command_slurm(const Command& command, const Paths& paths, std::ostream& out) {
  const SlurmOptions& s = command.slurm;
  const Options& run = command.run;
  if (s.shards < 1) throw UsageError("--shards " + std::to_string(s.shards) + " is not a count", "give --shards N, N >= 1");
  // The scripts give each task its own --shard; a --dry-run would make every task run nothing.
  if (!run.shard.empty())
    throw UsageError("--shard does not go with bench slurm: each task takes its own part of --shards",
                     "leave out --shard; --shards N cuts the sweep into N parts");
  if (run.dry_run)
    throw UsageError("--dry-run does not go with bench slurm: every task would run nothing",
                     "see the sweep first with bench --dry-run and the same flags, then write the scripts");
  // What is not a sweep's flag: every task would list, print columns, or
  // refuse its own flags (a resume takes none), and the merge job find no part.
  for (const char* flag : {"--list", "--columns", "--resume", "--redo-failed"})
    if (std::find(run.given.begin(), run.given.end(), flag) != run.given.end())
      throw UsageError(std::string(flag) + " does not go with bench slurm: the tasks run a sweep, each a part of it",
                       std::string(flag) == "--resume" || std::string(flag) == "--redo-failed"
                           ? "resume a part where it ran (bench --resume OUT/parts/K), or the merged folder"
                           : "leave it out; bench " + std::string(flag) + " alone answers it");
  // #SBATCH lines cannot quote: a value is written as it is, so one with a
  // line break (or any other control character, or a space) would end the
  // directive and run the rest as a command.
  for (const auto& [flag, value] : {std::pair<const char*, const std::string&>{"--partition", s.partition},
                                    {"--time", s.time}, {"--account", s.account}})
    if (!slurm_word(value))
      throw UsageError(std::string(flag) + " '" + value + "' is not a Slurm name or time",
                       "give it as sinfo/sacctmgr show it: letters, digits and _ . , : + - only");
  // The plan the tasks will cut, made here as each task will make it (the
  // preset applied): a part count the plan cannot take (more parts than cell
  // groups) is refused now, not by every task after it is queued.
  bool plot_at_end = false;  // the sweep's figures: the merge job draws them, or not
  int cpus = 1;              // as many CPUs a task as the largest thread count, the preset's too
  {
    Options planned = run;
    std::ostringstream quiet;
    choose_run_preset(planned, paths, quiet);
    plot_at_end = planned.plot_after;  // the preset's plot, less --no-plot (apply_preset)
    for (int t : planned.threads) cpus = std::max(cpus, t);
    Catalog catalog = load_catalog(planned, paths);
    const std::vector<Run> plan =
        make_plan(planned, select_workloads(planned, catalog, paths), select_allocators(planned, catalog));
    if (s.shards > 1) shard_of(plan, Shard{1, s.shards});
  }
  fs::path dir = fs::absolute(run.out.empty() ? paths.source / "results" / "slurm" : fs::path(run.out));
  for (char c : dir.string())
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      throw UsageError("--out holds a control character", "name the results folder without line breaks or tabs");
  // #SBATCH --output takes the path as it is, unquoted: a space would end it,
  // sbatch reads % as the start of a pattern (%j, %a), and a quote, backslash,
  // $ or backtick would be read as the script's shell would not.
  if (dir.string().find_first_of(" %\"'\\$`") != std::string::npos)
    throw UsageError("--out '" + dir.string() + "' holds a space, %, a quote, a backslash, $ or `, which #SBATCH "
                     "--output cannot take",
                     "name the results folder with letters, digits and ._-/ only");
  if (fs::exists(dir / "slurm")) throw UsageError(dir.string() + " holds a Slurm sweep already", "choose another --out");
  for (const char* sub : {"slurm", "parts"})
    if (std::error_code ec; fs::create_directories(dir / sub, ec), ec)
      throw UsageError("cannot create " + (dir / sub).string() + ": " + ec.message(), "choose a writable --out");
  const fs::path bench = paths.source / "bench";

  // The script runs from the repository: a file the flags name relative to
  // where bench slurm ran is named absolutely, an allocator library too (a
  // relative one failed every task: "no allocator library at <repository>/lib/...").
  std::vector<std::string> words = sweep_flags(run.command_line);
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i].rfind("--alloc=", 0) == 0) words[i] = "--alloc=" + absolute_libraries(words[i].substr(8));
    else if (words[i] == "--alloc" && i + 1 < words.size()) words[i + 1] = absolute_libraries(words[i + 1]);
    for (const char* flag : {"--registry", "--workloads"}) {
      const std::string with_equals = std::string(flag) + "=";
      if (words[i].rfind(with_equals, 0) == 0 && !words[i].substr(with_equals.size()).empty())
        words[i] = with_equals + fs::absolute(words[i].substr(with_equals.size())).string();
      else if (words[i] == flag && i + 1 < words.size())
        words[i + 1] = fs::absolute(words[i + 1]).string(), ++i;
    }
  }
  std::ostringstream flags;
  for (const auto& f : words) flags << ' ' << shell_word(f);
  const std::string exports = allocstamp_exports();
  std::ostringstream array;
  array << "#!/bin/bash\n"
        << "# allocstamp: " << s.shards << " parts of one sweep, one node each (written by bench slurm)\n"
        << "#SBATCH --job-name=allocstamp\n"
        << "#SBATCH --array=1-" << s.shards << "\n"
        << "#SBATCH --nodes=1\n#SBATCH --ntasks=1\n"
        << "#SBATCH --cpus-per-task=" << cpus << "\n";
  if (s.exclusive) array << "#SBATCH --exclusive\n";  // an allocator benchmark sharing a node measures its neighbour
  if (!s.partition.empty()) array << "#SBATCH --partition=" << s.partition << "\n";
  if (!s.time.empty()) array << "#SBATCH --time=" << s.time << "\n";
  if (!s.account.empty()) array << "#SBATCH --account=" << s.account << "\n";
  array << "#SBATCH --output=" << (dir / "slurm" / "part-%a.out").string() << "\n"
        << "set -euo pipefail\n"
        << "cd " << shell_word(paths.source.string()) << "\n"
        << exports
        << "# The build is read from the shared file system; on nodes without it, build once per node first:\n"
        << "#   make build\n"
        << "exec " << shell_word(bench.string()) << flags.str() << " --shard \"${SLURM_ARRAY_TASK_ID}/" << s.shards
        << "\" --out " << shell_word((dir / "parts").string()) << "/\"${SLURM_ARRAY_TASK_ID}\"\n";
  std::ostringstream merge;
  merge << "#!/bin/bash\n"
        << "# allocstamp: merges the parts, then the summary, figures and report (written by bench slurm)\n"
        << "#SBATCH --job-name=allocstamp-merge\n#SBATCH --nodes=1\n#SBATCH --ntasks=1\n";
  if (!s.partition.empty()) merge << "#SBATCH --partition=" << s.partition << "\n";
  if (!s.account.empty()) merge << "#SBATCH --account=" << s.account << "\n";
  merge << "#SBATCH --output=" << (dir / "slurm" / "merge.out").string() << "\n"
        << "set -uo pipefail\n"
        << "cd " << shell_word(paths.source.string()) << "\n"
        << exports
        << "parts=()\n"
        << "for p in " << shell_word((dir / "parts").string()) << "/*; do [ -f \"$p/meta.json\" ] && parts+=(\"$p\"); done\n"
        << shell_word(bench.string()) << " merge " << shell_word((dir / "merged").string()) << " \"${parts[@]}\" || exit $?\n";
  if (plot_at_end)
    merge << shell_word(bench.string()) << " plot " << shell_word((dir / "merged").string())
          << (run.per_comparison ? " --per-comparison" : "") << " || true\n";
  const fs::path array_script = dir / "slurm" / "array.sbatch", merge_script = dir / "slurm" / "merge.sbatch";
  for (const auto& [path, text] : {std::pair{array_script, array.str()}, std::pair{merge_script, merge.str()}}) {
    replace_file(path, text);  // renamed into place: a link at the name is replaced, not written through
    fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add);
  }
  out << "wrote " << array_script.string() << " (" << s.shards << " tasks) and " << merge_script.string() << "\n";
  if (!s.submit) {
    out << "submit with:\n  id=$(sbatch --parsable " << shell_word(array_script.string()) << ")\n"
        << "  sbatch --dependency=afterany:$id " << shell_word(merge_script.string()) << "\n"
        << "the merged results will be in " << (dir / "merged").string() << "\n";
    return 0;
  }
  std::string array_id = submit(array_script, {});
  std::string merge_id;
  try {
    merge_id = submit(merge_script, {"--dependency=afterany:" + array_id});
  } catch (const RunError& e) {
    // The array is queued: its id, said and kept, or it would be submitted twice.
    replace_file(dir / "slurm" / "jobs", array_id + "\n");
    out << "submitted: array job " << array_id << " (its id is in " << (dir / "slurm" / "jobs").string() << ")\n";
    const std::string why = e.what();
    throw RunError(why.substr(0, why.find(" — ")) + "; the array job " + array_id + " is queued",
                   "submit the merge by hand: sbatch --dependency=afterany:" + array_id + " " +
                       shell_word(merge_script.string()));
  }
  out << "submitted: array job " << array_id << ", merge job " << merge_id << "\n"
      << "the merged results will be in " << (dir / "merged").string() << "\n";
  replace_file(dir / "slurm" / "jobs", array_id + " " + merge_id + "\n");
  return 0;
}

// The verb's own flags (commands/command_line.cpp adds them to the shared ones cli/ defines). the sweep's flags fall through to bench's.
CLI::App* add_slurm_command(CLI::App& app, SlurmOptions& options) {
  CLI::App* slurm = app.add_subcommand(
      "slurm", "Write (and with --submit, submit) the sweep as a Slurm job array of N parts and a merge job");
  slurm->fallthrough();
  slurm->add_option("--shards", options.shards, "Parts of the plan, one array task (and node) each")->required()
      ->check(whole_number(1, 100000));
  slurm->add_option("--partition", options.partition, "Slurm partition");
  slurm->add_option("--time", options.time, "Time limit of each task, as sbatch takes it (e.g. 02:00:00)");
  slurm->add_option("--account", options.account, "Slurm account");
  slurm->add_flag("--exclusive,!--no-exclusive", options.exclusive,
                  "Whole nodes for each task (default: a benchmark sharing a node measures its neighbour)");
  slurm->add_flag("--submit", options.submit, "Run sbatch for both jobs and print their ids");
  slurm->footer("The scripts go to OUT/slurm/ (--out, default results/slurm); parts to OUT/parts/K, the merged "
                "folder to OUT/merged. Every other flag is the sweep's, e.g.\n"
                "  bench slurm --preset=stamp-large --shards 8 --partition=short --time=04:00:00 --submit");
  return slurm;
}

}  // namespace allocstamp
