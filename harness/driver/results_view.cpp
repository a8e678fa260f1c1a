// results_view.cpp — a results folder read for the figures, the report and
// the terminal's table (figures.h): its runs as rows with their group and
// kind, the meta.json beside them, and each cell's summary (time, its ratio
// to the reference and standing, memory, aborts), computed once for all three.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <sstream>

#include "errors.h"
#include "figures.h"
#include "meta.h"
#include "runs.h"

namespace allocstamp {

namespace fs = std::filesystem;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double median(const std::vector<double>& values) { return stats::summarize(values).median; }

}  // namespace

double parse_number(const std::string& text) {
  if (text.empty()) return kNaN;
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  return end && *end == 0 ? v : kNaN;
}

double run_time(const RunRow& row) {
  double t = number(row, "elapsed_ns");
  return std::isnan(t) ? number(row, "wall_ns") : t;
}

double number(const RunRow& row, const std::string& key) {
  auto it = row.values.find(key);
  if (it != row.values.end() && !it->second.empty()) return parse_number(it->second);
  auto extra = row.values.find("extra");
  if (extra == row.values.end()) return kNaN;
  std::istringstream in(extra->second);
  std::string pair;
  while (std::getline(in, pair, ';'))
    if (pair.size() > key.size() && pair.compare(0, key.size(), key) == 0 && pair[key.size()] == '=')
      return parse_number(pair.substr(key.size() + 1));
  return kNaN;
}

std::string machine_stamp(const nlohmann::json& meta) {
  std::vector<std::string> parts;
  nlohmann::json machine = meta.value("machine", nlohmann::json::object());
  for (const char* key : {"host", "cpu"})
    if (machine.contains(key) && machine[key].is_string() && !machine[key].get<std::string>().empty())
      parts.push_back(machine[key].get<std::string>());
  if (meta.contains("started") && meta["started"].is_string()) parts.push_back(meta["started"].get<std::string>().substr(0, 10));
  std::string joined;
  for (const auto& part : parts) joined += (joined.empty() ? "" : ", ") + part;
  return parts.empty() ? "machine and date unknown (no meta.json)" : joined;
}

ResultsView load_results(const fs::path& dir) {
  const std::string fix = "give a folder that bench wrote: bench plot DIR (default results/latest)";
  if (!fs::is_directory(dir)) throw UsageError(dir.string() + " is not a folder", "run a sweep first, or " + fix);
  if (!fs::exists(dir / "runs.csv")) throw UsageError(dir.string() + " has no runs.csv", fix);
  ResultsView view;
  view.dir = dir;
  RunsTable table = load_runs(dir, "results", Damaged::skip);
  if (!table.has("run_id") || !table.has("rep"))
    throw UsageError(dir.string() + "/runs.csv has no column " + (table.has("run_id") ? "rep" : "run_id"), fix);
  size_t malformed = table.damaged_rows;
  std::set<std::string> sizes, tms;
  for (CsvRow& row : table.rows) {
    RunRow run;
    run.kind = table.kind(row);
    for (size_t i = 0; i < table.header.size(); ++i) run.values[table.header[i]] = std::move(row[i]);
    run.threads = std::atoi(run.values["threads"].c_str());
    if (run.threads <= 0) {
      ++malformed;
      continue;
    }
    sizes.insert(run.values["size"]);
    if (!run.values["tm"].empty()) tms.insert(run.values["tm"]);
    view.runs.push_back(std::move(run));
  }
  if (view.runs.empty())
    throw UsageError(dir.string() + "/runs.csv holds no runs", "finish the sweep (bench --resume " + dir.string() + ") or " + fix);
  if (malformed)
    view.notes.push_back(std::to_string(malformed) + " row(s) of runs.csv are malformed (wrong number of fields): left out");
  std::set<int> threads;
  for (RunRow& run : view.runs) {
    run.group = run.values["workload"];
    if (tms.size() > 1 && !run.values["tm"].empty()) run.group += " " + run.values["tm"];
    if (sizes.size() > 1) run.group += " " + run.values["size"];
    if (std::find(view.groups.begin(), view.groups.end(), run.group) == view.groups.end()) view.groups.push_back(run.group);
    const std::string& a = run.values["allocator"];
    if (std::find(view.allocators.begin(), view.allocators.end(), a) == view.allocators.end()) view.allocators.push_back(a);
    threads.insert(run.threads);
  }
  view.threads.assign(threads.begin(), threads.end());
  view.reference = reference_allocator(view.allocators);
  const Meta meta = read_meta(dir);
  view.meta = meta.doc;
  if (!meta.present)
    view.notes.push_back("the folder has no meta.json: the setup and the figures' machine stamp are unknown");
  return view;
}

std::vector<CellSummary> summarize_cells(const ResultsView& view) {
  std::vector<CellSummary> cells;
  for (const auto& group : view.groups)
    for (int t : view.threads)
      for (const auto& a : view.allocators) {
        CellSummary c{group, a, t, {}, {}, false, 0, {}, kNaN, kNaN, kNaN};
        std::vector<double> times, heaps, rss, pss, aborts, maxrss;
        bool timed = false;
        for (const RunRow& r : view.runs)
          if (r.group == group && r.threads == t && r.values.at("allocator") == a && r.values.at("status") == "ok" &&
              r.kind == RunKind::timed)
            timed = true;
        for (const RunRow& r : view.runs) {
          if (r.group != group || r.threads != t || r.values.at("allocator") != a) continue;
          const std::string& status = r.values.at("status");
          ++c.statuses[status];
          if (status != "ok") continue;
          if (serves_key(r.kind, "elapsed_ns", timed)) times.push_back(run_time(r));
          if (r.kind == RunKind::timed && std::isfinite(number(r, "maxrss_kb"))) maxrss.push_back(number(r, "maxrss_kb"));
          double attempts = number(r, "tx_attempts_count"), commits = number(r, "tx_commits_count");
          if (attempts > 0 && std::isfinite(commits)) aborts.push_back(100.0 * (1.0 - commits / attempts));
          if (serves_key(r.kind, "heap_requested_peak_bytes", timed)) {
            ++c.profiled_runs;
            heaps.push_back(number(r, "heap_requested_peak_bytes"));
            rss.push_back(number(r, "rss_kb"));
            pss.push_back(number(r, "pss_kb"));
          }
        }
        c.time_under_memprof = !timed && !times.empty();
        if (c.statuses.empty()) continue;
        c.time = stats::summarize(times);
        c.heap_peak_bytes = median(heaps);
        c.rss_kb = median(rss);
        c.pss_kb = median(pss);
        c.abort_pct = median(aborts);
        c.maxrss_kb = median(maxrss);
        cells.push_back(c);
      }
  for (CellSummary& c : cells) {
    c.vs_reference = {kNaN, kNaN, kNaN};
    if (c.time.n == 0) continue;
    if (c.allocator == view.reference) {
      // The reference against itself: 1, with its own relative interval.
      c.vs_reference = {1, c.time.ci_low / c.time.mean, c.time.ci_high / c.time.mean};
      continue;
    }
    for (const CellSummary& ref : cells)
      if (ref.group == c.group && ref.threads == c.threads && ref.allocator == view.reference && ref.time.n > 0)
        c.vs_reference = stats::ratio_of_means(c.time, ref.time);
  }
  for (CellSummary& c : cells) {
    if (c.allocator == view.reference && c.time.n > 0) c.standing = "reference";
    else if (std::isfinite(c.vs_reference.ci_low) && std::isfinite(c.vs_reference.ci_high))
      c.standing = c.vs_reference.ci_high < 1 ? "faster" : c.vs_reference.ci_low > 1 ? "slower" : "indistinguishable";
  }
  return cells;
}

}  // namespace allocstamp
