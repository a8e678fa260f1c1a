// ranking.cpp — reads runs.csv, groups ok runs by cell, and formats the table:
// times from the timed runs, memory from the profiled runs.
#include "ranking.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "document.h"
#include "format.h"
#include "results_folder.h"
#include "runs.h"
#include "statistics.h"

namespace allocstamp {


void print_ranking(const std::filesystem::path& dir, std::ostream& out) {
  const RunsTable t = load_runs(dir, "results", Damaged::skip);
  // group: "workload size tm threads" -> allocator -> rows
  std::map<std::string, std::map<std::string, std::vector<const CsvRow*>>> groups;
  std::map<std::string, int> not_ok;
  for (const auto& row : t.rows) {
    const std::string& tm = t.text(row, "tm");
    std::string group = t.text(row, "workload") + ", size " + t.text(row, "size") + (tm.empty() ? "" : ", " + tm) +
                        ", " + t.text(row, "threads") + " thread(s)";
    if (t.status(row) == Status::ok) groups[group][t.text(row, "allocator")].push_back(&row);
    else ++not_ok[t.text(row, "status")];
  }
  std::vector<std::string> allocators;  // in the order the runs name them
  for (const auto& row : t.rows)
    if (std::find(allocators.begin(), allocators.end(), t.text(row, "allocator")) == allocators.end())
      allocators.push_back(t.text(row, "allocator"));
  const std::string reference = reference_allocator(allocators);
  bool under_memprof = false;  // some cell had no timed run: its time was measured under memprof
  for (const auto& [group, by_allocator] : groups) {
    struct Line {
      std::string allocator;
      stats::Summary time;
      double heap, hwm, pss;
      size_t outliers;
    };
    std::vector<Line> lines;
    std::map<std::string, bool> memprof_time;  // allocator -> its times are profiled runs'
    for (const auto& [allocator, list] : by_allocator) {
      // Times from the timed runs (from the profiled ones only in a folder without timed runs), memory from the profiled.
      bool timed = std::any_of(list.begin(), list.end(), [&](const CsvRow* r) { return t.kind(*r) == RunKind::timed; });
      if (!timed) under_memprof = true;
      memprof_time[allocator] = !timed;
      std::vector<double> times, heaps, hwms, psss;
      for (const CsvRow* r : list) {
        if (t.serves(*r, "elapsed_ns", timed)) times.push_back(t.time_ns(*r));
        if (t.serves(*r, "heap_requested_peak_bytes", timed)) {
          heaps.push_back(t.number(*r, "heap_requested_peak_bytes"));
          hwms.push_back(t.number(*r, "hwm_kb"));
          psss.push_back(t.number(*r, "pss_kb"));
        }
      }
      // Outliers are judged from five runs up: with fewer the MAD says little.
      size_t outliers = times.size() >= 5 ? stats::mad_outliers(times).size() : 0;
      lines.push_back({allocator, stats::summarize(times), stats::summarize(heaps).median, stats::summarize(hwms).median,
                       stats::summarize(psss).median, outliers});
    }
    std::sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) { return a.time.mean < b.time.mean; });
    const Line* glibc = nullptr;
    for (const auto& l : lines)
      if (l.allocator == reference) glibc = &l;
    Document doc{heading(2, group)};
    Block t = table({{"allocator", "timed runs", "time (ms)", "vs " + reference + " [95% CI]", "heap peak", "peak RSS",
                      "PSS"}});
    t.indent = 2;
    std::vector<std::string> warnings;
    bool few = false;
    for (const auto& l : lines) {
      std::string ratio = "-";
      if (&l == glibc) {
        ratio = "1 (reference)";
      } else if (glibc) {
        stats::Ratio r = stats::ratio_of_means(l.time, glibc->time);
        // A ratio of times is positive: an interval reaching below 0 says "very noisy".
        ratio = number_text("%.3f", r.value) + (std::isnan(r.ci_low) ? ""
                                                 : " [" + number_text("%.3f", std::max(0.0, r.ci_low)) + ", " +
                                                       number_text("%.3f", r.ci_high) + "]");
      }
      t.rows.push_back({l.allocator, std::to_string(l.time.n) + (memprof_time[l.allocator] ? "*" : ""),
                        number_text("%.2f", l.time.mean / 1e6), ratio,
                        mib_text(l.heap), mib_text(l.hwm * 1024), mib_text(l.pss * 1024)});
      if (l.time.n < 3) few = true;
      if (l.outliers)
        warnings.push_back("warning: " + std::to_string(l.outliers) + " outlier run(s) for " + l.allocator +
                           " (modified Z-score > 3.5): noisy");
    }
    if (few)
      warnings.push_back("warning: fewer than 3 ok timed runs in some cells: intervals are missing or very wide "
                         "(use --reps 3 or more)");
    doc.push_back(t);
    if (!warnings.empty()) doc.push_back(list(warnings, 4));
    out << render_text(doc);
  }
  out << "\nTimes are the timed runs' (the allocator alone); heap peak, peak RSS and PSS the profiled runs' (memprof in front)."
      << (under_memprof ? "\n* no timed run in the cell (a folder older than timed runs, or --reps 0): its times are the "
                          "profiled runs', measured under memprof."
                        : "")
      << "\n";
  for (const auto& [status, count] : not_ok) out << "\n" << count << " run(s) " << status << " (see runs.csv and logs/)";
  if (!not_ok.empty()) out << "\n";
}

}  // namespace allocstamp
