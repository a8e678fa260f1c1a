// cell_summary.cpp — each cell's summary (cell_summary.h): time and peak RSS
// with their ratios to the reference and standings, memprof's memory,
// aborts, bytes per element, computed once for every table and figure.
#include "analysis/cell_summary.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>

#include "key_names.h"

namespace allocstamp {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const char* standing_word(const stats::Ratio& r, const char* below, const char* above) {
  const std::string side = stats::ratio_side(r);
  return side == "below" ? below : side == "above" ? above : side == "within" ? "indistinguishable" : "";
}

}  // namespace


std::vector<CellSummary> summarize_cells(const ResultsView& view) {
  const Cells& cells = view.cells;
  const RunsTable& t = *view.table;
  std::vector<CellSummary> out;
  for (const Cell& cell : cells.cells) {
    CellSummary c;
    c.cell = &cell;
    c.group = cell.group;
    c.allocator = cell.allocator;
    c.threads = cell.id.threads;
    for (const CsvRow* r : cell.ok) {
      if (t.kind(*r) == RunKind::timed) ++c.timed_runs;
      if (t.kind(*r) == RunKind::profiled) ++c.profiled_runs;
      if (t.kind(*r) == RunKind::simulated) ++c.simulated_runs;
    }
    c.sim_cycles = stats::median(cells.values(cell, keys::sim_cycles_count));
    c.time_under_memprof = !cell.timed && c.profiled_runs > 0;
    c.time = cells.estimate(cell, "time");
    c.peak_rss_kb = cells.estimate(cell, keys::maxrss_kb);
    c.heap_peak_bytes = stats::median(cells.values(cell, keys::heap_requested_peak_bytes));
    c.rss_kb = stats::median(cells.values(cell, keys::rss_kb));
    c.pss_kb = stats::median(cells.values(cell, keys::pss_kb));
    for (const CsvRow* r : cells.serving(cell, keys::tx_attempts_count)) {
      const double attempts = t.number(*r, keys::tx_attempts_count), commits = t.number(*r, keys::tx_commits_count);
      if (attempts > 0 && std::isfinite(commits)) c.abort_pct.push_back(100.0 * (1.0 - commits / attempts));
    }
    c.requested_per_element = stats::median(cells.values(cell, kRequestedPerElement));
    c.rss_per_element = stats::median(cells.values(cell, kRssPerElement));
    c.busy_runs = cells.busy_runs(cell);
    out.push_back(std::move(c));
  }
  // Each cell's time estimate, computed above, for its comparisons below.
  std::map<const Cell*, stats::LogEstimate> time_of;
  for (const CellSummary& c : out) time_of[c.cell] = c.time;
  auto too_short = [](const stats::LogEstimate& e) { return e.n > 0 && e.center < kShortestTimedPhaseNs; };
  for (CellSummary& c : out) {
    if (const std::size_t colon = c.allocator.find(':'); colon != std::string::npos) {
      c.base = c.allocator.substr(0, colon);
      if (const Cell* base = cells.find(c.group, c.threads, c.base)) {
        c.time_vs_base = cells.ratio(*c.cell, *base, "time");
        c.base_standing = standing_word(c.time_vs_base, "faster", "slower");
        if (!c.base_standing.empty() && (too_short(c.time) || too_short(time_of.at(base))))
          c.base_standing = "too short";
        c.memory_vs_base = cells.ratio(*c.cell, *base, keys::maxrss_kb);
        c.base_memory_standing = standing_word(c.memory_vs_base, "leaner", "heavier");
      }
    }
    const Cell* ref = cells.find(c.group, c.threads, cells.reference);
    if (!ref) continue;
    c.sim_cycles_vs_reference = c.sim_cycles / stats::median(cells.values(*ref, keys::sim_cycles_count));
    if (ref == c.cell) {
      if (c.time.n > 0) c.standing = "reference";
      if (c.peak_rss_kb.n > 0) c.memory_standing = "reference";
      // The reference against itself: 1, with its own relative interval.
      auto self = [](const stats::LogEstimate& e) {
        return e.n ? stats::Ratio{1, e.low / e.center, e.high / e.center} : stats::Ratio{NAN, NAN, NAN};
      };
      c.time_vs_reference = self(c.time);
      c.memory_vs_reference = self(c.peak_rss_kb);
      continue;
    }
    c.time_vs_reference = cells.ratio(*c.cell, *ref, "time");
    c.standing = standing_word(c.time_vs_reference, "faster", "slower");
    // A phase this short is no answer: no faster or slower, whatever its interval says.
    if (!c.standing.empty() && (too_short(c.time) || too_short(time_of.at(ref))))
      c.standing = "too short";
    c.memory_vs_reference = cells.ratio(*c.cell, *ref, keys::maxrss_kb);
    c.memory_standing = standing_word(c.memory_vs_reference, "leaner", "heavier");
  }
  return out;
}

bool listed_before(const CellSummary& a, const CellSummary& b) {
  if (a.threads != b.threads) return a.threads < b.threads;
  const double ta = a.time.n ? a.time.log_mean : INFINITY, tb = b.time.n ? b.time.log_mean : INFINITY;
  return ta < tb;
}

}  // namespace allocstamp
