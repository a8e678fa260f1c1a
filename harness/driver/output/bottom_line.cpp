// bottom_line.cpp — the table across workloads and its sentences (bottom_line.h).
#include "output/bottom_line.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "model/format.h"

namespace allocstamp {

namespace {

bool separated(const std::string& standing) {
  return standing == "faster" || standing == "slower" || standing == "leaner" || standing == "heavier";
}

// "0.84*": a ratio with its mark, "-" where there is none.
std::string marked(const stats::Ratio& r, const std::string& standing) {
  if (standing == "too short") return "short";
  if (standing == "unstable") return "unstable";
  if (!std::isfinite(r.value)) return "-";
  return number_text("%.2f", r.value) + (separated(standing) ? "*" : "");
}

// The rows: (group, threads), groups in the folder's order (the plan's, as
// the tables and findings go), each with its cells.
using RowKey = std::pair<std::string, int>;
std::vector<std::pair<RowKey, std::vector<const CellSummary*>>> rows_of(const ResultsView& view,
                                                                         const std::vector<CellSummary>& cells) {
  std::vector<std::pair<RowKey, std::vector<const CellSummary*>>> rows;
  for (const CellSummary& c : cells) {
    const RowKey key{c.group, c.threads};
    auto it = std::find_if(rows.begin(), rows.end(), [&](const auto& r) { return r.first == key; });
    if (it == rows.end()) rows.push_back({key, {}}), it = rows.end() - 1;
    it->second.push_back(&c);
  }
  const std::vector<std::string>& groups = view.cells.groups;
  auto place = [&](const RowKey& k) {
    return std::pair{std::find(groups.begin(), groups.end(), k.first) - groups.begin(), k.second};
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) { return place(a.first) < place(b.first); });
  return rows;
}

std::string threads_text(int threads) { return std::to_string(threads) + (threads == 1 ? " thread" : " threads"); }

// "1.23 [1.10, 1.37]": how many times, inverted where the ratio is below 1.
std::string times_text(const stats::Ratio& r) {
  const bool below = r.value < 1;
  const double v = below ? 1 / r.value : r.value, lo = below ? 1 / r.ci_high : r.ci_low,
               hi = below ? 1 / r.ci_low : r.ci_high;
  return ratio_interval_text(v, lo, hi);
}

}  // namespace

Block bottom_line_table(const ResultsView& view, const std::vector<CellSummary>& cells) {
  const std::string& ref = view.cells.reference;
  std::vector<std::string> allocators;
  for (const CellSummary& c : cells)
    if (c.allocator != ref && std::find(allocators.begin(), allocators.end(), c.allocator) == allocators.end())
      allocators.push_back(c.allocator);
  Block table;
  table.kind = Block::Kind::table;
  table.text_columns = 2;
  table.key_columns = 2;
  std::vector<std::string> header = {"workload", "threads"};
  header.insert(header.end(), allocators.begin(), allocators.end());
  table.rows.push_back(header);
  for (const auto& [key, row_cells] : rows_of(view, cells)) {
    std::vector<std::string> row = {key.first, std::to_string(key.second)};
    for (const std::string& a : allocators) {
      auto it = std::find_if(row_cells.begin(), row_cells.end(), [&](const CellSummary* c) { return c->allocator == a; });
      row.push_back(it == row_cells.end() ? ""
                                          : marked((*it)->time_vs_reference, (*it)->standing) + " / " +
                                                marked((*it)->memory_vs_reference, (*it)->memory_standing));
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

std::vector<std::string> bottom_line_answers(const ResultsView& view, const std::vector<CellSummary>& cells) {
  const std::string& ref = view.cells.reference;
  std::vector<std::string> out;
  for (const auto& [key, row_cells] : rows_of(view, cells)) {
    const CellSummary *fastest = nullptr, *leanest = nullptr, *least_slower = nullptr, *least_heavier = nullptr;
    int slower = 0, heavier = 0, others = 0, too_short = 0, unstable = 0;
    int time_compared = 0, rss_compared = 0;  // with a standing from an interval (faster, slower or indistinguishable)
    std::vector<std::string> untimed, unweighed;  // those without a time / peak RSS of their own (no ok run recorded one)
    auto lower = [](const CellSummary* best, const CellSummary* c, const stats::Ratio CellSummary::*ratio) {
      return !best || (c->*ratio).value < (best->*ratio).value;
    };
    bool ref_timed = false, ref_weighed = false;  // the reference has a time / peak RSS to compare with
    for (const CellSummary* c : row_cells) {
      if (c->allocator == ref) {
        ref_timed = c->time.n > 0;
        ref_weighed = c->peak_rss_kb.n > 0;
        continue;
      }
      ++others;
      if (c->standing == "faster" && lower(fastest, c, &CellSummary::time_vs_reference)) fastest = c;
      if (c->standing == "slower" && lower(least_slower, c, &CellSummary::time_vs_reference)) least_slower = c;
      if (c->memory_standing == "leaner" && lower(leanest, c, &CellSummary::memory_vs_reference)) leanest = c;
      if (c->memory_standing == "heavier" && lower(least_heavier, c, &CellSummary::memory_vs_reference))
        least_heavier = c;
      slower += c->standing == "slower";
      too_short += c->standing == "too short";
      unstable += c->standing == "unstable";
      heavier += c->memory_standing == "heavier";
      time_compared += c->standing == "faster" || c->standing == "slower" || c->standing == "indistinguishable";
      rss_compared += c->memory_standing == "leaner" || c->memory_standing == "heavier" ||
                      c->memory_standing == "indistinguishable";
      if (c->standing.empty() && c->time.n == 0) untimed.push_back(c->allocator);
      if (c->memory_standing.empty() && c->peak_rss_kb.n == 0) unweighed.push_back(c->allocator);
    }
    if (others == 0) continue;
    // The standings count among those measured; the others are named apart.
    const int timed = others - int(untimed.size()), weighed = others - int(unweighed.size());
    // The fastest that separated; else the reference, where every other was
    // slower (the nearest named); else that none separated.
    std::string time =
        !ref_timed ? "no time of " + ref + " to compare with"
        : timed == 0 ? "no time for " + joined(untimed) + " (no ok run recorded one)"
        : too_short == timed ? "too short to time (under " + number_text("%g", kShortestTimedPhaseNs / 1e6) + " ms)"
        : fastest ? fastest->allocator + " ran " + times_text(fastest->time_vs_reference) + " times faster than " + ref
        : slower == timed
            ? ref + " was the fastest: " + least_slower->allocator + " ran " +
                  times_text(least_slower->time_vs_reference) + " times slower"
        : slower ? "none ran faster than " + ref + "; " + std::to_string(slower) + " of " + std::to_string(timed) +
                       " ran slower"
        // No standing at all: nothing was compared (one run a cell has no interval), which is not "no difference".
        : time_compared == 0 && timed - too_short - unstable > 0
            ? "too few timed runs to compare times (use --reps 3 or more)" +
                  (too_short ? "; " + std::to_string(too_short) + " of " + std::to_string(timed) + " too short to time"
                             : std::string())
        : time_compared == 0 && too_short > 0
            ? "too short to time (under " + number_text("%g", kShortestTimedPhaseNs / 1e6) + " ms)"
            : "no time differs from " + ref + "'s";
    if (ref_timed && timed > 0 && unstable == timed)
      time = "no time to rank by: the timed runs fall in two modes (unstable)";
    else if (ref_timed && unstable)
      time += " (" + std::to_string(unstable) + " of " + std::to_string(timed) + " unstable: two modes)";
    // An answer among the compared does not speak for a cell too short to time.
    if (ref_timed && time_compared > 0 && too_short > 0)
      time += " (" + std::to_string(too_short) + " of " + std::to_string(timed) + " too short to time)";
    if (ref_timed && timed > 0 && !untimed.empty())
      time += " (no time for " + joined(untimed) + ": no ok run recorded one)";
    auto times_rss = [&](const CellSummary* c) {
      const stats::Ratio& r = c->memory_vs_reference;
      return c->allocator + " used " + ratio_interval_text(r.value, r.ci_low, r.ci_high) + " times " + ref +
             "'s peak RSS";
    };
    std::string memory = !ref_weighed ? "no peak RSS of " + ref + " to compare with"
                         : weighed == 0 ? "no peak RSS for " + joined(unweighed) + " (no ok run recorded one)"
                         : leanest            ? times_rss(leanest)
                         : heavier == weighed ? ref + " was the leanest: " + times_rss(least_heavier)
                         : heavier ? "none used less memory than " + ref + "; " + std::to_string(heavier) + " of " +
                                         std::to_string(weighed) + " used more"
                         : rss_compared == 0 ? std::string("too few runs to compare peak RSS (use --reps 3 or more)")
                                             : "no peak RSS differs from " + ref + "'s";
    if (ref_weighed && weighed > 0 && !unweighed.empty())
      memory += " (no peak RSS for " + joined(unweighed) + ": no ok run recorded one)";
    out.push_back(key.first + ", " + threads_text(key.second) + ": " + time + "; " + memory + ".");
  }
  return out;
}

std::string bottom_line_legend(const ResultsView& view) {
  const std::string& ref = view.cells.reference;
  return "Each cell: the allocator's time / peak RSS over " + ref +
         "'s (below 1: faster / leaner), the quotients of the geometric means of the timed runs; * where the "
         "interval leaves 1 out (a standing, at its family's level: the summary tables' legend says which); short where a "
         "measured phase lasted under " +
         number_text("%g", kShortestTimedPhaseNs / 1e6) + " ms, too short to time; unstable where the timed runs (the "
         "cell's or " + ref + "'s) fall in two modes. The summary tables give the intervals.";
}

}  // namespace allocstamp
