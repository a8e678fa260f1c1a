// summary_table.cpp — the per-workload summary table (summary_table.h).
#include "summary_table.h"

#include <algorithm>
#include <cmath>

#include "format.h"

namespace allocstamp {

namespace {

// "4 ok, 1 crashed": every run of the cell, ok ones first.
std::string statuses_of(const std::map<std::string, int>& statuses) {
  std::string out;
  auto add = [&](const std::string& status, int n) { out += (out.empty() ? "" : ", ") + std::to_string(n) + " " + status; };
  if (statuses.count("ok")) add("ok", statuses.at("ok"));
  for (const auto& [status, n] : statuses)
    if (status != "ok") add(status, n);
  return out;
}

std::string mib(double bytes) { return std::isfinite(bytes) ? number_text("%.1f", bytes / (1024.0 * 1024.0)) : "-"; }

}  // namespace

Block summary_table(const ResultsView& view, const std::vector<CellSummary>& cells, const std::string& group) {
  std::vector<const CellSummary*> rows;
  bool transactional = false;
  for (const CellSummary& c : cells)
    if (c.group == group) {
      rows.push_back(&c);
      transactional = transactional || std::isfinite(c.abort_pct);
    }
  std::stable_sort(rows.begin(), rows.end(), [](const CellSummary* a, const CellSummary* b) {
    if (a->threads != b->threads) return a->threads < b->threads;
    double ta = a->time.n ? a->time.median : INFINITY, tb = b->time.n ? b->time.median : INFINITY;
    return ta < tb;
  });
  Block table;
  table.kind = Block::Kind::table;
  table.text_columns = 3;  // threads, allocator, runs
  std::vector<std::string> header = {"threads", "allocator", "runs", "timed runs", "time median (ms)",
                                     "95% CI of the mean (ms)", "vs " + view.reference + " [95% CI]", "standing"};
  if (transactional) header.push_back("aborts (%)");
  header.insert(header.end(), {"profiled runs", "heap peak (MiB)", "RSS (MiB)", "PSS (MiB)"});
  table.rows.push_back(header);
  for (const CellSummary* c : rows) {
    std::string ratio = "-";
    if (c->standing == "reference") {
      ratio = "1";
    } else if (std::isfinite(c->vs_reference.value)) {
      ratio = number_text("%.3f", c->vs_reference.value);
      // A ratio of times is positive: an interval reaching below 0 only says "very noisy".
      if (std::isfinite(c->vs_reference.ci_low))
        ratio += " [" + number_text("%.3f", std::max(0.0, c->vs_reference.ci_low)) + ", " +
                 number_text("%.3f", c->vs_reference.ci_high) + "]";
    }
    std::string ci = std::isfinite(c->time.ci_low) ? "[" + number_text("%.2f", std::max(0.0, c->time.ci_low) / 1e6) +
                                                         ", " + number_text("%.2f", c->time.ci_high / 1e6) + "]"
                                                   : "-";
    std::string timed = std::to_string(c->time.n) + (c->time_under_memprof ? " (profiled: no timed run)" : "");
    // RSS: the profiled runs' at the end of the measured phase, else the timed runs' own peak (wait4).
    std::string rss = std::isfinite(c->rss_kb) ? mib(c->rss_kb * 1024)
                      : std::isfinite(c->maxrss_kb) ? mib(c->maxrss_kb * 1024) + " (wait4 peak)" : "-";
    std::vector<std::string> row = {std::to_string(c->threads), c->allocator, statuses_of(c->statuses), timed,
                                    c->time.n ? number_text("%.2f", c->time.median / 1e6) : "-", ci, ratio,
                                    c->standing.empty() ? "-" : c->standing};
    if (transactional) row.push_back(std::isfinite(c->abort_pct) ? number_text("%.1f", c->abort_pct) : "-");
    row.insert(row.end(), {std::to_string(c->profiled_runs), mib(c->heap_peak_bytes), rss,
                           std::isfinite(c->pss_kb) ? mib(c->pss_kb * 1024) : "-"});
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::string summary_table_legend(const ResultsView& view) {
  return "Times come from the timed runs (the allocator alone, no memprof), memory from the profiled runs (memprof "
         "in front); no number mixes the two. Time is the measured phase (elapsed_ns), else the whole process's wall "
         "time: its median, and the 95% Student t interval of its mean. The ratio is the mean time over " +
         view.reference +
         "'s in the same workload and thread count, with a 95% interval (delta method); the standing says faster or "
         "slower only when that interval leaves 1 out, else indistinguishable. Aborts: the median share of "
         "transaction attempts that aborted. Heap peak (live requested bytes), RSS and PSS (at the end of the "
         "measured phase) are medians of the profiled runs; where none ran, RSS is the timed runs' own peak "
         "(wait4, marked \"wait4 peak\"). Runs counts every run of the cell, failures included; only ok runs enter the figures.";
}

}  // namespace allocstamp
