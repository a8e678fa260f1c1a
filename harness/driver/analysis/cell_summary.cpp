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
#include "model/format.h"

namespace allocstamp {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const char* standing_word(const stats::Ratio& r, const char* below, const char* above) {
  const std::string side = stats::ratio_side(r);
  return side == "below" ? below : side == "above" ? above : side == "within" ? "indistinguishable" : "";
}


// Issue 49: the folder's time ratios, and its memory ratios, each corrected
// as one family (stats::correct_family), then every standing read from the
// corrected interval, so a standing and the interval shown never disagree.
void correct_standings(std::vector<CellSummary>& out, bool per_comparison) {
  auto claims = [](const std::string& standing) {
    return !standing.empty() && standing != "reference" && standing != "too short" && standing != "unstable";
  };
  std::vector<stats::Ratio*> time, memory;
  for (CellSummary& c : out) {
    c.time_vs_reference_95 = c.time_vs_reference;
    c.memory_vs_reference_95 = c.memory_vs_reference;
    c.time_vs_base_95 = c.time_vs_base;
    c.memory_vs_base_95 = c.memory_vs_base;
    if (claims(c.standing)) time.push_back(&c.time_vs_reference);
    if (claims(c.base_standing) && !c.base_is_reference) time.push_back(&c.time_vs_base);
    if (claims(c.memory_standing)) memory.push_back(&c.memory_vs_reference);
    if (claims(c.base_memory_standing) && !c.base_is_reference) memory.push_back(&c.memory_vs_base);
  }
  const stats::FamilyCorrection time_family = stats::correct_family(time, 0.05, per_comparison);
  const stats::FamilyCorrection memory_family = stats::correct_family(memory, 0.05, per_comparison);
  // A ratio that claims no standing (too short, unstable) is not one of the
  // family's comparisons, but the tables show it under the family's level:
  // its interval is widened to that level too.
  auto relevel = [](stats::Ratio& r, const std::string& standing, const stats::FamilyCorrection& family) {
    if (!standing.empty() && standing != "reference" && !family.per_comparison && family.m > 0 && std::isfinite(r.p))
      r = stats::at_level(r, family.level);
  };
  for (CellSummary& c : out) {
    c.time_family = time_family;
    c.memory_family = memory_family;
    if (!claims(c.standing)) relevel(c.time_vs_reference, c.standing, time_family);
    if (!claims(c.base_standing)) relevel(c.time_vs_base, c.base_standing, time_family);
    if (!claims(c.memory_standing)) relevel(c.memory_vs_reference, c.memory_standing, memory_family);
    if (!claims(c.base_memory_standing)) relevel(c.memory_vs_base, c.base_memory_standing, memory_family);
    if (claims(c.standing)) c.standing = standing_word(c.time_vs_reference, "faster", "slower");
    if (claims(c.base_standing)) c.base_standing = standing_word(c.time_vs_base, "faster", "slower");
    if (claims(c.memory_standing)) c.memory_standing = standing_word(c.memory_vs_reference, "leaner", "heavier");
    if (claims(c.base_memory_standing)) c.base_memory_standing = standing_word(c.memory_vs_base, "leaner", "heavier");
    if (c.base_is_reference) {  // one comparison: the base's row says what the reference's does
      c.time_vs_base = c.time_vs_reference;
      c.memory_vs_base = c.memory_vs_reference;
      c.base_standing = c.standing;
      c.base_memory_standing = c.memory_standing;
    }
  }
}

}  // namespace


std::vector<CellSummary> summarize_cells(const ResultsView& view, bool per_comparison) {
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
    c.time_modes = stats::two_modes(cells.values(cell, "time"));
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
  std::map<const Cell*, bool> two_modes_of;
  for (const CellSummary& c : out) time_of[c.cell] = c.time, two_modes_of[c.cell] = c.time_modes.found;
  auto too_short = [](const stats::LogEstimate& e) { return e.n > 0 && e.center < kShortestTimedPhaseNs; };
  for (CellSummary& c : out) {
    if (const std::size_t colon = c.allocator.find(':'); colon != std::string::npos) {
      c.base = c.allocator.substr(0, colon);
      if (const Cell* base = cells.find(c.group, c.threads, c.base)) {
        c.time_vs_base = cells.ratio(*c.cell, *base, "time");
        c.base_standing = standing_word(c.time_vs_base, "faster", "slower");
        if (!c.base_standing.empty() && (too_short(c.time) || too_short(time_of.at(base))))
          c.base_standing = "too short";
        else if (!c.base_standing.empty() && (c.time_modes.found || two_modes_of.at(base)))
          c.base_standing = "unstable";
        c.memory_vs_base = cells.ratio(*c.cell, *base, keys::maxrss_kb);
        c.base_memory_standing = standing_word(c.memory_vs_base, "leaner", "heavier");
      }
    }
    const Cell* ref = cells.find(c.group, c.threads, cells.reference);
    if (!ref) continue;
    c.base_is_reference = !c.base.empty() && cells.find(c.group, c.threads, c.base) == ref;
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
    if (!c.standing.empty() && (too_short(c.time) || too_short(time_of.at(ref)))) {
      c.standing = "too short";
      c.short_phase_ns = std::min(c.time.center, time_of.at(ref).center);
    } else if (!c.standing.empty() && (c.time_modes.found || two_modes_of.at(ref))) {
      // Two modes, in its runs or the reference's: no single time to rank by.
      c.standing = "unstable";
    }
    c.memory_vs_reference = cells.ratio(*c.cell, *ref, keys::maxrss_kb);
    c.memory_standing = standing_word(c.memory_vs_reference, "leaner", "heavier");
  }
  correct_standings(out, per_comparison);
  return out;
}

std::string level_text(const stats::FamilyCorrection& family) {
  return number_text("%.3g", 100 * family.level) + "%";
}

std::string standings_legend(const std::vector<CellSummary>& cells) {
  if (cells.empty()) return "";
  const stats::FamilyCorrection& time = cells.front().time_family;
  const stats::FamilyCorrection& memory = cells.front().memory_family;
  if (time.m + memory.m == 0) return "";
  const std::string counts = std::to_string(time.m) + " time ratio(s) and " + std::to_string(memory.m) + " memory ratio(s)";
  if (time.per_comparison)
    return "Uncorrected (--per-comparison): each interval is its own comparison's 95% one, and a standing (faster or "
           "slower, leaner or heavier) is claimed where it leaves 1 out — of the " + counts +
           ", about 5% of those where nothing differs come out as a difference by chance.";
  if (time.m <= 1 && memory.m <= 1)
    return "A standing (faster or slower, leaner or heavier) is claimed where its 95% interval leaves 1 out, else "
           "indistinguishable (one comparison of each kind: no correction for their number).";
  std::vector<std::string> families;
  for (const auto& [f, what] : {std::pair<const stats::FamilyCorrection&, const char*>{time, "time"}, {memory, "memory"}})
    if (f.m > 0)
      families.push_back(std::string(what) + ": " + std::to_string(f.selected) + " of " + std::to_string(f.m) +
                         " selected, intervals at " + level_text(f));
  const std::string which = time.m && memory.m ? "are two families (one per kind)" : "are one family";
  return "Standings are corrected for the number of comparisons: the folder's " + counts + " " + which +
         ", and a standing (faster or slower; leaner or heavier) is claimed only where Benjamini–Hochberg at q = " +
         number_text("%g", time.q) + " selects it in its family (" + families.front() +
         (families.size() > 1 ? "; " + families.back() : std::string()) +
         "); every interval shown is at its family's false-coverage level, Benjamini–Yekutieli's 1 − q·R/m (1 − q/m "
         "when none is selected), so a standing and its interval never disagree; else indistinguishable. "
         "--per-comparison shows the uncorrected 95% intervals.";
}

bool listed_before(const CellSummary& a, const CellSummary& b) {
  if (a.threads != b.threads) return a.threads < b.threads;
  const double ta = a.time.n ? a.time.log_mean : INFINITY, tb = b.time.n ? b.time.log_mean : INFINITY;
  return ta < tb;
}

}  // namespace allocstamp
