// results_view.cpp — a results folder read for the figures, the report and
// the terminal's table (results_view.h): its cells and the meta.json beside them.
#include "results/results_view.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "model/errors.h"
#include "results/meta.h"
#include "results/runs.h"
#include "results/side_tables.h"
#include "key_names.h"
#include "meta_names.h"

namespace allocstamp {

namespace fs = std::filesystem;

std::string machine_stamp(const nlohmann::json& meta) {
  std::vector<std::string> parts;
  nlohmann::json machine = meta.value(meta::machine, nlohmann::json::object());
  for (const char* key : {meta::machine_host, meta::machine_cpu})
    if (machine.contains(key) && machine[key].is_string() && !machine[key].get<std::string>().empty())
      parts.push_back(machine[key].get<std::string>());
  if (meta.contains(meta::started) && meta[meta::started].is_string())
    parts.push_back(meta[meta::started].get<std::string>().substr(0, 10));
  std::string joined;
  for (const auto& part : parts) joined += (joined.empty() ? "" : ", ") + part;
  return parts.empty() ? "machine and date unknown (no meta.json)" : joined;
}

namespace {

const std::string kFix = "give a folder that bench wrote: bench plot DIR (default results/latest)";

ResultsView view_of(const fs::path& dir, std::shared_ptr<const RunsTable> table) {
  ResultsView view;
  view.dir = dir;
  check_side_tables(dir);  // a damaged series.csv is refused here, not met by one figure
  if (!table->has(keys::run_id) || !table->has(keys::rep))
    throw UsageError(dir.string() + "/runs.csv has no column " + (table->has(keys::run_id) ? keys::rep : keys::run_id), kFix);
  if (table->rows.empty())
    throw UsageError(dir.string() + "/runs.csv holds no runs", "finish the sweep (bench --resume " + dir.string() + ") or " + kFix);
  view.table = table;
  view.cells = cells_of(*view.table);
  const Meta meta = read_meta(dir);
  view.meta = meta.doc;
  if (!meta.present)
    view.notes.push_back("the folder has no meta.json: the setup and the figures' machine stamp are unknown");
  return view;
}

}  // namespace

ResultsView load_results(const fs::path& dir) {
  if (!fs::is_directory(dir)) throw UsageError(dir.string() + " is not a folder", "run a sweep first, or " + kFix);
  if (!fs::exists(fs::symlink_status(dir / "runs.csv"))) throw UsageError(dir.string() + " has no runs.csv", kFix);
  return view_of(dir, std::make_shared<const RunsTable>(load_runs(dir, "results")));
}

ResultsView results_view_of(const fs::path& dir, const RunsTable& table) {
  return view_of(dir, std::make_shared<const RunsTable>(table));
}

}  // namespace allocstamp
