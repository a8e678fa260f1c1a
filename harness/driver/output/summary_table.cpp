// summary_table.cpp — the per-workload summary table (summary_table.h).
#include "output/summary_table.h"

#include <algorithm>
#include <cmath>

#include "model/format.h"

namespace allocstamp {

namespace {

// "5 timed + 1 profiled, 1 crashed": the ok runs by kind, then every other status.
std::string runs_of(const CellSummary& c) {
  std::string out = std::to_string(c.timed_runs) + " timed + " + std::to_string(c.profiled_runs) + " profiled";
  if (c.simulated_runs) out += " + " + std::to_string(c.simulated_runs) + " simulated";
  for (const auto& [status, n] : c.cell->statuses)
    if (status != "ok") out += ", " + std::to_string(n) + " " + status;
  if (c.busy_runs) out += ", " + std::to_string(c.busy_runs) + " on a busy machine";
  return out;
}

std::string mib(double bytes) { return std::isfinite(bytes) ? number_text("%.1f", bytes / (1024.0 * 1024.0)) : "-"; }

// "12.34 [11.90, 12.80]": an estimate with its interval, in `scale` units.
std::string with_interval(const stats::LogEstimate& e, double scale, const char* format) {
  if (e.n == 0) return "-";
  std::string out = number_text(format, e.center / scale);
  if (std::isfinite(e.low)) out += " [" + number_text(format, e.low / scale) + ", " + number_text(format, e.high / scale) + "]";
  return out;
}

std::string ratio_text(const stats::Ratio& r, const std::string& standing, bool provisional) {
  if (standing == "reference") return "1";
  if (provisional) return std::isfinite(r.value) ? number_text("%.3f", r.value) : "-";
  return ratio_interval_text(r.value, r.ci_low, r.ci_high);
}

// While the sweep goes on a standing waits for the family's level: "later";
// those that do not depend on it (too short, unstable) are said at once.
std::string standing_text(const std::string& standing, bool provisional, bool narrow) {
  if (provisional && standing != "reference" && standing != "too short" && standing != "unstable" && !standing.empty())
    return "later";
  if (narrow) {
    if (standing.empty()) return "-";
    if (standing == "reference") return "ref";
    if (standing == "indistinguishable") return "~";
    if (standing == "too short") return "short";
    return standing;
  }
  return standing.empty() ? "-" : standing;
}

// "0.1 [0.0-1.1]": the median abort rate and the lowest and highest run's.
std::string aborts_text(const std::vector<double>& pct) {
  if (pct.empty()) return "-";
  const auto [lo, hi] = std::minmax_element(pct.begin(), pct.end());
  std::string out = number_text("%.2f", stats::median(pct));
  if (pct.size() > 1) out += " [" + number_text("%.2f", *lo) + "-" + number_text("%.2f", *hi) + "]";
  return out;
}

std::string per_element(double bytes) { return std::isfinite(bytes) ? number_text("%.1f", bytes) : "-"; }

// The level of the ratios' intervals (their family's, cell_summary.h): "95%" uncorrected.
std::string time_level(const std::vector<const CellSummary*>& rows, bool provisional) {
  if (provisional) return "CI later";
  return (rows.empty() ? "95%" : level_text(rows.front()->time_family)) + " CI";
}
std::string memory_level(const std::vector<const CellSummary*>& rows, bool provisional) {
  if (provisional) return "CI later";
  return (rows.empty() ? "95%" : level_text(rows.front()->memory_family)) + " CI";
}

// The terminal's table, 120 columns: each estimate without its interval, each
// ratio with it, no run counts (warnings name the cells with few or failed runs).
Block narrow_table(const ResultsView& view, const std::vector<const CellSummary*>& rows, bool transactional,
                   bool maps, bool simulated, bool provisional) {
  const std::string ref = view.cells.reference;
  Block table;
  table.kind = Block::Kind::table;
  table.text_columns = 2;  // threads, allocator
  table.key_columns = 2;
  std::vector<std::string> header = {"threads", "allocator", "time ms", "vs " + ref + " [" + time_level(rows, provisional) + "]",
                                     "time", "RSS MiB", "vs " + ref + " [" + memory_level(rows, provisional) + "]", "memory"};
  if (transactional) header.push_back("aborts (%)");
  if (maps) header.insert(header.end(), {"req. B/elem", "RSS B/elem"});
  if (simulated) header.push_back("sim. vs " + ref);
  table.rows.push_back(header);
  std::string align = "llrrlrrl";
  if (transactional) align += "r";
  if (maps) align += "rr";
  if (simulated) align += "r";
  table.align = align;
  for (const CellSummary* c : rows) {
    std::string time = c->time.n ? number_text("%.2f", c->time.center / 1e6) : "-";
    if (c->time_under_memprof) time += " (p)";
    // Without a timed run in the group the peak RSS is the profiled runs' too (memprof in front).
    std::string rss = c->peak_rss_kb.n ? number_text("%.1f", c->peak_rss_kb.center / 1024.0) : "-";
    if (c->time_under_memprof && c->peak_rss_kb.n) rss += " (p)";
    std::vector<std::string> row = {std::to_string(c->threads), c->allocator, time,
                                    ratio_text(c->time_vs_reference, c->standing, provisional),
                                    standing_text(c->standing, provisional, true),
                                    rss,
                                    ratio_text(c->memory_vs_reference, c->memory_standing, provisional),
                                    standing_text(c->memory_standing, provisional, true)};
    if (transactional) row.push_back(c->abort_pct.empty() ? "-" : number_text("%.2f", stats::median(c->abort_pct)));
    if (maps) row.insert(row.end(), {per_element(c->requested_per_element), per_element(c->rss_per_element)});
    if (simulated)
      row.push_back(std::isfinite(c->sim_cycles_vs_reference) ? number_text("%.3f", c->sim_cycles_vs_reference) : "-");
    table.rows.push_back(std::move(row));
  }
  return table;
}

}  // namespace

Block summary_table(const ResultsView& view, const std::vector<CellSummary>& cells, const std::string& group,
                    bool wide, bool provisional) {
  std::vector<const CellSummary*> rows;
  bool transactional = false, maps = false, simulated = false;
  for (const CellSummary& c : cells)
    if (c.group == group) {
      rows.push_back(&c);
      simulated = simulated || c.simulated_runs > 0;
      transactional = transactional || !c.abort_pct.empty();
      maps = maps || std::isfinite(c.requested_per_element) || std::isfinite(c.rss_per_element);
    }
  std::stable_sort(rows.begin(), rows.end(), [](const CellSummary* a, const CellSummary* b) { return listed_before(*a, *b); });
  if (!wide) return narrow_table(view, rows, transactional, maps, simulated, provisional);
  const std::string ref = view.cells.reference;
  Block table;
  table.kind = Block::Kind::table;
  table.text_columns = 3;  // threads, allocator, runs
  table.key_columns = 2;
  std::vector<std::string> header = {"threads", "allocator", "runs", "time (ms) [95% CI]",
                                     "vs " + ref + " [" + time_level(rows, provisional) + "]", "time",
                                     "peak RSS (MiB) [95% CI]", "vs " + ref + " [" + memory_level(rows, provisional) + "]",
                                     "memory"};
  if (transactional) header.push_back("aborts (%) [range]");
  header.insert(header.end(), {"heap peak (MiB)", "RSS end (MiB)"});
  if (maps) header.insert(header.end(), {"requested B/element", "RSS B/element"});
  if (simulated) header.insert(header.end(), {"simulated cycles (M)", "simulated vs " + ref});
  table.rows.push_back(header);
  for (const CellSummary* c : rows) {
    std::string time = with_interval(c->time, 1e6, "%.2f");
    if (c->time_under_memprof) time += " (profiled: no timed run)";
    std::vector<std::string> row = {std::to_string(c->threads), c->allocator, runs_of(*c), time,
                                    ratio_text(c->time_vs_reference, c->standing, provisional),
                                    standing_text(c->standing, provisional, false),
                                    with_interval(c->peak_rss_kb, 1024.0, "%.1f") +
                                        (c->time_under_memprof && c->peak_rss_kb.n ? " (profiled: no timed run)" : ""),
                                    ratio_text(c->memory_vs_reference, c->memory_standing, provisional),
                                    standing_text(c->memory_standing, provisional, false)};
    if (transactional) row.push_back(aborts_text(c->abort_pct));
    row.insert(row.end(), {mib(c->heap_peak_bytes), std::isfinite(c->rss_kb) ? mib(c->rss_kb * 1024) : "-"});
    if (maps) row.insert(row.end(), {per_element(c->requested_per_element), per_element(c->rss_per_element)});
    if (simulated)
      row.insert(row.end(), {std::isfinite(c->sim_cycles) ? number_text("%.1f", c->sim_cycles / 1e6) : "-",
                             std::isfinite(c->sim_cycles_vs_reference) ? number_text("%.3f", c->sim_cycles_vs_reference)
                                                                       : "-"});
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::string summary_table_legend(const ResultsView& view, const std::vector<CellSummary>& cells) {
  const std::string ref = view.cells.reference;
  bool simulated = false;
  for (const CsvRow& row : view.table->rows) simulated = simulated || view.table->kind(row) == RunKind::simulated;
  return "Times and peak RSS come from the timed runs (the allocator alone, no memprof); heap peak, RSS end and bytes "
         "per element from the profiled runs (memprof in front); no number mixes the two. Time is the measured phase "
         "(elapsed_ns), else the whole process's wall time; peak RSS is the process's own (wait4). Each is a geometric "
         "mean with the 95% interval of the mean of the logs; \"vs " +
         ref + "\" is the quotient of the same geometric means with its interval (the logs paired repetition by "
         "repetition, as the sweep interleaves them), so the rows, sorted by time, are in the order of the ratios. " +
         standings_legend(cells) + " Aborts: the median share of transaction attempts that aborted, with the lowest and highest "
         "run's. Heap peak (live requested bytes) and RSS end (at the end of the measured phase) are medians of the "
         "profiled runs; map workloads add the requested bytes and the RSS the fill added, per element held. Runs "
         "counts the ok runs by kind and every other status; only ok runs enter the figures." +
         std::string(!simulated ? ""
                                : " Simulated cycles (bench --simulate) are valgrind's estimate for the measured phase "
                                  "(instructions + 10 x first-level + 100 x last-level cache misses), the median of "
                                  "the simulated runs: a deterministic cost model shown beside the time, not a time, "
                                  "and never what the rows are sorted by.");
}

}  // namespace allocstamp
