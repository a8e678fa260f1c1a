// summary.cpp — summary.csv: per cell (cells.h) and measured key, n, mean,
// median, stddev and a 95% confidence interval over the ok runs of runs.csv
// that measure the key (its `kind`: timed runs for times, profiled runs for
// memprof's figures); the one estimate the tables use (geometric mean with its
// interval) and, for the time and the peak RSS, the ratio to the reference
// allocator with its interval and standing; map workloads' bytes per element.
#include "analysis/summary.h"

#include <cmath>
#include <map>
#include <sstream>

#include "analysis/cell_summary.h"
#include "keys.h"
#include "results/runs.h"
#include "model/output_file.h"
#include "model/statistics.h"
#include "key_names.h"

namespace allocstamp {

namespace fs = std::filesystem;

namespace {

std::string num(double v) {
  if (std::isnan(v)) return std::string();
  std::ostringstream s;
  s.precision(10);
  s << v;
  return s.str();
}

// summary.csv's schema line and header, the whole file of a sweep stopped before its first run.
std::ostringstream summary_head() {
  CsvRow head = {keys::workload,  keys::app,       keys::size, keys::args,   keys::allocator,
                 keys::alloc_library, keys::alloc_env, keys::tm,   keys::threads};
  for (const char* h : {"metric", "kind", "n", "mean", "median", "stddev", "ci95_low", "ci95_high", "geomean",
                        "geomean_ci95_low", "geomean_ci95_high", "vs_reference", "vs_reference_ci95_low",
                        "vs_reference_ci95_high", "vs_reference_adjusted_low", "vs_reference_adjusted_high",
                        "vs_reference_adjusted_level", "standing"})
    head.push_back(h);
  std::ostringstream out;
  out << schema_line("summary.csv") << '\n';
  write_row(out, head);
  return out;
}

}  // namespace

fs::path write_empty_summary(const fs::path& dir) {
  const fs::path out_path = dir / "summary.csv";
  replace_file(out_path, summary_head().str());
  return out_path;
}

fs::path write_summary(const fs::path& dir) {
  const RunsTable table = load_runs(dir, "results");
  if (table.rows.empty()) return write_empty_summary(dir);
  const ResultsView view = results_view_of(dir, table);
  return write_summary(view, summarize_cells(view));
}

fs::path write_summary(const ResultsView& view, const std::vector<CellSummary>& summaries) {
  const fs::path out_path = view.dir / "summary.csv";
  std::ostringstream out = summary_head();
  const RunsTable& t = *view.table;
  const Cells& cells = view.cells;
  // The measured quantities (keys with a unit of measure), in the file's
  // order, then the figures derived from them.
  std::vector<std::string> metrics;
  for (const contract::KeyInfo& k : contract::kKeys)
    if (k.unit != "text" && k.unit != "number" && t.has(std::string(k.name))) metrics.push_back(std::string(k.name));
  metrics.insert(metrics.end(), {kRequestedPerElement, kRssPerElement});
  for (const CellSummary& c : summaries) {
    const Cell& cell = *c.cell;
    if (cell.ok.empty()) continue;
    const CellId& id = cell.id;
    for (const std::string& m : metrics) {
      const std::vector<double> values = cells.values(cell, m);
      if (values.empty()) continue;
      const stats::Summary s = stats::summarize(values);
      const stats::LogEstimate e = stats::log_estimate(values);
      const bool timed = cell.timed && (m == kRequestedPerElement || m == kRssPerElement ? false : from_timed_runs(m));
      const RunKind kind = from_simulated_runs(m) ? RunKind::simulated : timed ? RunKind::timed : RunKind::profiled;
      CsvRow row = {id.workload, id.app, id.size, id.args, id.allocator, id.alloc_library, id.alloc_env, id.tm,
                    std::to_string(id.threads)};
      // A geometric mean of the values log_estimate could take: where some were 0
      // it is of the rest alone (0,0,0,2,8 gave 4 over a mean of 2), so none.
      const bool all_logged = e.n == s.n;
      row.insert(row.end(), {m, kind_name(kind), std::to_string(s.n), num(s.mean),
                             num(s.median), num(s.stddev), num(s.ci_low), num(s.ci_high), num(all_logged ? e.center : NAN),
                             num(all_logged ? e.low : NAN), num(all_logged ? e.high : NAN)});
      // The verdicts of the tables: the time (the cell's time key) and the peak RSS.
      const bool time = m == cell.time_key, memory = m == keys::maxrss_kb;
      // The ratio's own 95% interval, and the one its family's correction shows (the standing's).
      const stats::Ratio none{NAN, NAN, NAN};
      const stats::Ratio raw = time ? c.time_vs_reference_95 : memory ? c.memory_vs_reference_95 : none;
      const stats::Ratio adjusted = time ? c.time_vs_reference : memory ? c.memory_vs_reference : none;
      const bool has_interval = std::isfinite(adjusted.ci_low);
      row.insert(row.end(), {num(raw.value), num(raw.ci_low), num(raw.ci_high), num(adjusted.ci_low),
                             num(adjusted.ci_high), has_interval ? num(adjusted.level) : "",
                             time ? c.standing : memory ? c.memory_standing : ""});
      write_row(out, row);
    }
  }
  replace_file(out_path, out.str());
  return out_path;
}

}  // namespace allocstamp
