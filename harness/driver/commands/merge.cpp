// commands/merge.cpp — `bench merge OUT DIR...`: one results folder from the
// folders of a sharded sweep (--shard K/N). Each part must come from the same
// plan, no two may be the same part, and all must have run the same allocator
// versions on the same CPU model (unless --allow-mixed-hosts). Rows keep the
// whole plan's run ids, so runs.csv, series.csv, scopes.csv, micro.csv and
// callsites.csv are the parts' rows in run order, and logs/ and callsites/
// files move as they are. A part that is missing leaves its runs missing:
// `bench --resume OUT` makes them.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <tuple>

#include "commands/commands.h"
#include "key_names.h"
#include "meta_names.h"
#include "results/csv.h"
#include "model/errors.h"
#include "results/meta.h"
#include "results/runs.h"
#include "results/cells.h"
#include "results/merge_tables.h"
#include "analysis/summary.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;

struct Part {
  fs::path dir;
  Meta meta;
  int index = 0, count = 0;
};

std::string host_of(const Meta& m) {
  return m.doc.value(meta::machine, nlohmann::json::object()).value(meta::machine_host, "?");
}
std::string cpu_of(const Meta& m) {
  return m.doc.value(meta::machine, nlohmann::json::object()).value(meta::machine_cpu, "?");
}

// The folder a merge writes before it is complete: a sibling of OUT (one file
// system, so rename(2) moves it), removed on every way out unless kept.
class StagingFolder {
 public:
  explicit StagingFolder(const fs::path& out)
      : path_(out.parent_path() / (".merging-" + out.filename().string() + "-" + std::to_string(getpid()))) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~StagingFolder() {
    std::error_code ec;
    if (!moved_) fs::remove_all(path_, ec);
  }
  StagingFolder(const StagingFolder&) = delete;
  StagingFolder& operator=(const StagingFolder&) = delete;
  const fs::path& path() const { return path_; }
  // OUT, new or an empty folder, becomes the staged folder in one rename.
  void move_to(const fs::path& out) {
    std::error_code ec;
    if (fs::is_directory(out, ec)) fs::remove(out, ec);  // empty: checked before the merge
    fs::rename(path_, out);
    moved_ = true;
  }

 private:
  fs::path path_;
  bool moved_ = false;
};

// Each part's meta.json, sealed and of one shard.
std::vector<Part> read_parts(const std::vector<std::string>& dirs) {
  std::vector<Part> parts;
  for (const std::string& d : dirs) {
    Part p;
    p.dir = d;
    p.meta = read_meta(p.dir, MetaMissing::refuse);
    check_options_seal(p.meta.doc, p.dir);  // merge seals the options again: an edited part's would pass
    const nlohmann::json shard = p.meta.doc.value(meta::shard, nlohmann::json(nullptr));
    if (!shard.is_object())
      throw UsageError(d + " is not the folder of one shard (it ran without --shard)", "merge the folders of bench --shard K/N");
    p.index = shard.value(meta::shard_index, 0);
    p.count = shard.value(meta::shard_count, 0);
    parts.push_back(std::move(p));
  }
  return parts;
}

// The parts are of one plan and split, each once, and (unless allowed) ran on
// identical nodes.
void check_parts_agree(const std::vector<Part>& parts, bool allow_mixed_hosts) {
  const Part& first = parts.front();
  std::set<int> seen;
  for (const Part& p : parts) {
    if (p.meta.doc.value(meta::plan, nlohmann::json()) != first.meta.doc.value(meta::plan, nlohmann::json()))
      throw UsageError(p.dir.string() + " ran another plan than " + first.dir.string(),
                       "merge only the parts of one sweep (the same flags, registries and --shard N)");
    // The same sweep: every option but the part (the seed, the timeout, a
    // workload's arguments change the numbers without changing the plan).
    // (As meta.json's seal takes them: --no-plot, whether the sweep drew its
    // figures, is no part of what it measured.)
    auto options_of = [](const Part& part) {
      nlohmann::json o = part.meta.doc.value(meta::options, nlohmann::json::object());
      if (o.is_object()) o.erase(meta::option_shard);
      return options_seal(o);
    };
    if (const nlohmann::json mine = options_of(p), theirs = options_of(first); mine != theirs) {
      std::string differing;
      for (const auto& [key, value] : mine.items())
        if (!theirs.contains(key) || theirs[key] != value) differing += (differing.empty() ? "" : ", ") + key;
      for (const auto& [key, value] : theirs.items())
        if (!mine.contains(key)) differing += (differing.empty() ? "" : ", ") + key;
      throw UsageError(p.dir.string() + " ran with other options than " + first.dir.string() + " (" + differing + ")",
                       "merge only the parts of one sweep: the same flags but --shard");
    }
    if (p.count != first.count)
      throw UsageError(p.dir.string() + " is a part of " + std::to_string(p.count) + ", " + first.dir.string() +
                           " of " + std::to_string(first.count),
                       "merge the parts of one --shard K/N split");
    if (!seen.insert(p.index).second)
      throw UsageError("two folders are part " + std::to_string(p.index) + "/" + std::to_string(p.count) +
                           " (overlapping parts), " + p.dir.string() + " among them",
                       "give each part once");
    // The allocator tunings bench inherited (MALLOC_CONF, TCMALLOC_*, ...) are
    // the setup of every run, not the node's: a part made under others made
    // other cells, whatever the hosts.
    if (p.meta.inherited_tunings() != first.meta.inherited_tunings())
      throw UsageError(p.dir.string() + " ran with the allocator tunings " + tunings_text(p.meta.inherited_tunings()) +
                           " in bench's environment, " + first.dir.string() + " with " +
                           tunings_text(first.meta.inherited_tunings()) + ": its runs were made under another setup",
                       "run every part from a shell with the same ones (export or unset them), and merge those");
    if (allow_mixed_hosts) continue;
    if (p.meta.allocator_versions() != first.meta.allocator_versions())
      throw UsageError(p.dir.string() + " ran other allocator versions than " + first.dir.string(),
                       "run every part on identical nodes, or pass --allow-mixed-hosts");
    if (cpu_of(p.meta) != cpu_of(first.meta))
      throw UsageError(p.dir.string() + " ran on a " + cpu_of(p.meta) + ", " + first.dir.string() + " on a " +
                           cpu_of(first.meta),
                       "run every part on identical nodes, or pass --allow-mixed-hosts");
  }
}

// The run ids of all parts: two parts never overlap in one plan; a damaged
// part might. And every cell ran the same way in each part: its workload's
// arguments and its allocator's settings (runs.csv's args, alloc_env) are
// in no plan key, so parts made from edited registries or workload files
// share a plan and would merge into cells of mixed setups.
struct PartRuns {
  std::set<std::string> ids;
  std::vector<fs::path> empty;  // parts stopped before their first run ended
};
PartRuns check_part_runs(const std::vector<Part>& parts) {
  PartRuns found;
  std::set<std::string>& ids = found.ids;
  struct Setup {
    std::string value;
    fs::path part;
  };
  std::map<std::string, Setup> setups;  // what and whose -> its value, as the first part that ran it had it
  for (const Part& p : parts) {
    RunsTable runs = load_runs(p.dir, "part " + p.dir.string());
    if (runs.rows.empty()) {  // as a missing part: its runs are missing (a task stopped in its first run)
      found.empty.push_back(p.dir);
      continue;
    }
    for (const CsvRow& r : runs.rows) {
      if (!ids.insert(runs.text(r, keys::run_id)).second)
        throw UsageError(p.dir.string() + " holds run " + runs.text(r, keys::run_id) + " that another part holds too",
                         "merge the parts of one split, each once");
      // A workload's arguments (but the thread count) and an allocator's
      // settings are the same in every row of the sweep.
      const std::string workload = runs.text(r, keys::workload), allocator = runs.text(r, keys::allocator);
      for (const auto& [what, key, value] :
           {std::tuple<std::string, std::string, std::string>{
                workload + "'s arguments", workload + "|" + runs.text(r, keys::size) + "|" + runs.text(r, keys::tm),
                args_but_threads(runs.text(r, keys::args))},
            {allocator + "'s settings", allocator, runs.text(r, keys::alloc_env)}}) {
        const auto [seen, first] = setups.try_emplace(what + "|" + key, Setup{value, p.dir});
        if (first || seen->second.value == value) continue;
        throw UsageError(p.dir.string() + " ran " + what + " as '" + value + "', " + seen->second.part.string() +
                             " as '" + seen->second.value + "': its runs were made under another setup",
                         "merge only the parts of one sweep, made from the same registries and workload files");
      }
    }
  }
  return found;
}

// The parts' tables joined in run order, and their logs and call-site files
// copied as they are, into DIR.
void merge_part_files(const std::vector<Part>& parts, const fs::path& dir) {
  std::vector<fs::path> dirs;
  for (const Part& p : parts) dirs.push_back(p.dir);
  for (const char* table : {"runs.csv", "series.csv", "scopes.csv", "micro.csv", "callsites.csv"})
    merge_table(dirs, dir, table);
  for (const Part& p : parts)
    for (const char* sub : {"logs", "callsites"}) {
      std::error_code ec;
      if (fs::is_symlink(fs::symlink_status(p.dir / sub, ec)))  // a link to /etc would be copied from
        throw UsageError((p.dir / sub).string() + " is a symbolic link",
                         "a part's logs and call sites are its own folders: remove the link");
      if (!fs::is_directory(p.dir / sub)) continue;
      fs::create_directories(dir / sub);
      for (const auto& e : fs::directory_iterator(p.dir / sub)) {
        if (e.is_symlink() || !e.is_regular_file())
          throw UsageError(e.path().string() + " is not a regular file (a link?)",
                           "a part's logs and call sites are its own files: remove it");
        if (e.path().extension() != ".csv") fs::copy_file(e.path(), dir / sub / e.path().filename(), fs::copy_options::overwrite_existing);
      }
    }
}

// The merged folder's meta.json: the first part's, without its shard, the
// options sealed again, and each part's machine, warnings and busy runs.
nlohmann::json merged_meta(const std::vector<Part>& parts) {
  nlohmann::json meta = parts.front().meta.doc;
  meta.erase(meta::shard);
  if (meta.contains(meta::options)) {
    meta[meta::options][meta::option_shard] = "";
    meta[meta::options_seal] = options_seal(meta[meta::options]);  // what --resume OUT holds the options to
  }
  meta[meta::parts] = nlohmann::json::array();
  // The machine's state is each part's: its warnings, named by the part, and
  // its busy runs, summed.
  nlohmann::json warnings = nlohmann::json::array();
  int busy = 0, measured = 0;
  for (const Part& p : parts) {
    meta[meta::parts].push_back({{meta::part_dir, fs::absolute(p.dir).string()},
                                 {meta::part_shard, std::to_string(p.index) + "/" + std::to_string(p.count)},
                                 {meta::machine, p.meta.doc.value(meta::machine, nlohmann::json::object())},
                                 {meta::allocators, p.meta.doc.value(meta::allocators, nlohmann::json::array())},
                                 {meta::started, p.meta.doc.value(meta::started, "")},
                                 {meta::finished, p.meta.doc.value(meta::finished, "")}});
    for (const std::string& w : p.meta.machine_warnings())
      warnings.push_back("part " + std::to_string(p.index) + "/" + std::to_string(p.count) + ": " + w);
    busy += p.meta.busy_runs().busy;
    measured += p.meta.busy_runs().of;
  }
  meta[meta::machine_warnings] = warnings;
  meta.erase(meta::resumed);  // the first part's resumes; each part's are in its own folder
  meta[meta::busy_runs] = busy;
  meta[meta::runs_with_machine_state] = measured;
  // Interrupted if any part was (its runs still to make: bench --resume OUT).
  bool interrupted = false;
  for (const Part& p : parts) interrupted = interrupted || p.meta.doc.value(meta::interrupted, false);
  meta[meta::interrupted] = interrupted;
  // --precision's record is every part's: the rounds each added, summed; the
  // groups each left short, all of them; the strongest reason any stopped for.
  nlohmann::json precision = nlohmann::json(nullptr);
  for (const Part& p : parts) {
    const nlohmann::json mine = p.meta.doc.value(meta::precision, nlohmann::json(nullptr));
    if (!mine.is_object()) continue;
    if (!precision.is_object()) {
      precision = mine;
      continue;
    }
    precision[meta::precision_rounds_added] =
        precision.value(meta::precision_rounds_added, 0) + mine.value(meta::precision_rounds_added, 0);
    for (const auto& group : mine.value(meta::precision_short, nlohmann::json::array()))
      precision[meta::precision_short].push_back(group);
    static const std::vector<std::string> strength = {"precise", "max_reps", "budget", "interrupted"};
    auto rank = [&](const nlohmann::json& record) {
      const auto at = std::find(strength.begin(), strength.end(), record.value(meta::precision_stopped_by, "precise"));
      return at == strength.end() ? 0 : at - strength.begin();
    };
    if (rank(mine) > rank(precision)) precision[meta::precision_stopped_by] = mine[meta::precision_stopped_by];
  }
  if (precision.is_object()) meta[meta::precision] = precision;
  // Finished when the last part finished.
  auto finished = [](const nlohmann::json& doc) {
    return doc.contains(meta::finished) && doc[meta::finished].is_string() ? doc[meta::finished].get<std::string>()
                                                                           : std::string();
  };
  for (const Part& p : parts)
    if (finished(p.meta.doc) > finished(meta)) meta[meta::finished] = finished(p.meta.doc);
  return meta;
}

}  // namespace

int command_merge(const MergeOptions& o, std::ostream& out) {
  if (o.parts.empty()) throw UsageError("no part to merge", "bench merge OUT PART_DIR...");
  std::vector<Part> parts = read_parts(o.parts);
  check_parts_agree(parts, o.allow_mixed_hosts);
  const PartRuns found = check_part_runs(parts);
  const std::set<std::string>& ids = found.ids;
  // A part without a run (stopped before its first ended, as a task at its
  // time limit) is a missing part: left out, said, its runs made by --resume.
  if (found.empty.size() == parts.size())
    throw UsageError("no part holds a run (each runs.csv has its header only)",
                     "finish the parts first (bench --resume PART), then merge them");
  for (const fs::path& empty : found.empty) {
    std::cerr << "note: part " << empty.string() << " holds no runs: left out, its runs missing\n";
    parts.erase(std::find_if(parts.begin(), parts.end(), [&](const Part& p) { return p.dir == empty; }));
  }

  fs::path out_dir = fs::absolute(o.out).lexically_normal();
  if (out_dir.filename().empty()) out_dir = out_dir.parent_path();  // OUT/ names OUT
  if (fs::exists(fs::symlink_status(out_dir)) && !(fs::is_directory(fs::symlink_status(out_dir)) && fs::is_empty(out_dir)))
    throw UsageError(out_dir.string() + " is not an empty folder", "merge into a new folder");
  if (std::error_code ec; fs::create_directories(out_dir.parent_path(), ec), ec)
    throw UsageError("cannot create " + out_dir.parent_path().string() + ": " + ec.message(),
                     "merge into a folder you can write");
  if (::access(out_dir.parent_path().c_str(), W_OK) != 0)
    throw UsageError("cannot write in " + out_dir.parent_path().string(), "merge into a folder you can write");
  StagingFolder staging(out_dir);
  const fs::path& dir = staging.path();
  merge_part_files(parts, dir);
  const nlohmann::json meta = merged_meta(parts);
  {
    std::ofstream f(dir / "meta.json");
    f << meta.dump(2) << "\n";
    if (!f) throw RunError("cannot write " + (dir / "meta.json").string(), "check the free space");
  }
  write_summary(dir);
  staging.move_to(out_dir);
  // The plan's runs are ids 1..planned; ids past them are the rounds --precision added.
  const std::size_t planned = meta.value(meta::plan, nlohmann::json::array()).size();
  std::size_t made = 0;
  for (const std::string& id : ids) made += std::strtoull(id.c_str(), nullptr, 10) <= planned ? 1 : 0;
  out << "merged " << parts.size() << " of " << parts.front().count << " part(s) into " << out_dir.string() << ": "
      << made << " of " << planned << " planned runs";
  if (ids.size() > made) out << " and " << ids.size() - made << " added by --precision";
  std::set<std::string> hosts;
  for (const Part& p : parts) hosts.insert(host_of(p.meta));
  out << " from " << hosts.size() << " host(s)\n";
  if (made < planned)
    out << "missing: " << planned - made << " planned run(s); make them with: bench --resume " << out_dir.string() << "\n";
  return 0;
}

// The verb's own flags (commands/command_line.cpp adds them to the shared ones cli/ defines).
CLI::App* add_merge_command(CLI::App& app, MergeOptions& options) {
  CLI::App* merge = app.add_subcommand(
      "merge", "Join the results folders of a sharded sweep (--shard K/N) into one: bench merge OUT PART_DIR...");
  merge->add_option("out", options.out, "The merged folder (new or empty)")->required();
  merge->add_option("parts", options.parts, "The parts' folders")->required()->check(CLI::ExistingDirectory);
  merge->add_flag("--allow-mixed-hosts", options.allow_mixed_hosts,
                  "Merge parts that ran other allocator versions or another CPU model (their times do not compare)");
  // Its own footer: without one it would show the sweep's examples.
  merge->footer(
      "The parts must be one sweep's: the same plan and options but --shard, each part once, made from shells with\n"
      "the same allocator tunings, on nodes of one CPU model and allocator versions (--allow-mixed-hosts lifts the\n"
      "last). A missing part leaves its runs missing: bench --resume OUT makes them. docs/cluster.md has the rest.\n"
      "Example: bench merge results/merged results/parts/1 results/parts/2\n"
      "Exit status: 0 merged, 1 a file could not be written in full, 2 parts that do not make one sweep or an OUT it\n"
      "cannot make.");
  return merge;
}

}  // namespace allocstamp
