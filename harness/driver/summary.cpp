// summary.cpp — summary.csv: per cell and measured key, n, mean, median, stddev and a 95%
// confidence interval over the ok runs of runs.csv that measure the key (its
// `kind`: timed runs for times, profiled runs for memprof's figures).
#include "summary.h"

#include <cmath>
#include <map>
#include <sstream>

#include "keys.h"
#include "results_folder.h"
#include "runs.h"
#include "statistics.h"

namespace allocstamp {

namespace fs = std::filesystem;

fs::path write_summary(const fs::path& dir) {
  const RunsTable t = load_runs(dir, "results", Damaged::skip);
  const std::vector<std::string> cell_keys = {"workload", "app", "size", "allocator", "tm", "threads"};
  // cell -> metric -> values, each metric from the runs that measure it
  // (times from the timed runs, memprof's figures from the profiled runs).
  std::map<CsvRow, std::map<std::string, std::vector<double>>> cells;
  std::map<CsvRow, bool> timed_present;
  std::vector<std::string> metric_order;
  // The measured quantities (keys with a unit of measure), in the file's order.
  for (const contract::KeyInfo& k : contract::kKeys)
    if (k.unit != "text" && k.unit != "number" && t.has(std::string(k.name))) metric_order.push_back(std::string(k.name));
  auto cell_of = [&](const CsvRow& row) {
    CsvRow cell;
    for (const auto& k : cell_keys) cell.push_back(t.text(row, k));
    return cell;
  };
  for (const auto& row : t.rows)
    if (t.status(row) == Status::ok && t.kind(row) == RunKind::timed) timed_present[cell_of(row)] = true;
  for (const auto& row : t.rows) {
    if (t.status(row) != Status::ok) continue;
    CsvRow cell = cell_of(row);
    auto& metrics = cells[cell];
    for (const auto& m : metric_order) {
      if (!t.serves(row, m, timed_present[cell])) continue;
      const std::string& v = t.text(row, m);
      if (v.empty()) continue;
      char* end = nullptr;
      double d = std::strtod(v.c_str(), &end);
      if (end && *end == 0) metrics[m].push_back(d);
    }
  }
  fs::path out_path = dir / "summary.csv";
  {
    std::ostringstream out;
    out << schema_line("summary.csv") << '\n';
    CsvRow head = cell_keys;
    for (const char* h : {"metric", "kind", "n", "mean", "median", "stddev", "ci95_low", "ci95_high"}) head.push_back(h);
    write_row(out, head);
    auto num = [](double v) {
      if (std::isnan(v)) return std::string();
      std::ostringstream s;
      s.precision(10);
      s << v;
      return s.str();
    };
    for (const auto& [cell, metrics] : cells)
      for (const auto& m : metric_order) {
        auto it = metrics.find(m);
        if (it == metrics.end()) continue;
        stats::Summary s = stats::summarize(it->second);
        CsvRow row = cell;
        const bool timed = timed_present[cell] && from_timed_runs(m);
        row.insert(row.end(), {m, kind_name(timed ? RunKind::timed : RunKind::profiled), std::to_string(s.n),
                               num(s.mean), num(s.median), num(s.stddev), num(s.ci_low), num(s.ci_high)});
        write_row(out, row);
      }
    replace_file(out_path, out.str());
  }
  return out_path;
}

}  // namespace allocstamp
