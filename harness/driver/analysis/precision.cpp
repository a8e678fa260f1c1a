// precision.cpp — the precision of each cell group's times (precision.h).
#include "analysis/precision.h"

#include <cmath>
#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>

#include "results/cells.h"
#include "results/runs.h"

namespace allocstamp {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The half width of an interval around `value`, relative to it: the farther end.
double half_width(double value, double low, double high) {
  if (!(value > 0) || std::isnan(low) || std::isnan(high)) return kInfinity;
  return std::max(high / value - 1.0, 1.0 - low / value);
}

}  // namespace

std::vector<GroupPrecision> time_precision(const RunsTable& table) {
  const Cells cells = cells_of(table);
  // The timed cells of each group, in order of first appearance.
  std::vector<std::vector<const Cell*>> groups;
  std::map<std::pair<std::string, int>, std::size_t> at;  // (group, threads) -> index in groups
  for (const Cell& cell : cells.cells) {
    if (!cell.has_timed) continue;
    auto [it, fresh] = at.emplace(std::make_pair(cell.group, cell.id.threads), groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(&cell);
  }
  std::vector<GroupPrecision> out;
  for (const std::vector<const Cell*>& members : groups) {
    const Cell& first = *members.front();
    GroupPrecision g{first.id.workload, first.id.threads, std::numeric_limits<int>::max(), 0, 0, ""};
    const Cell* reference = cells.find(first.group, first.id.threads, cells.reference);
    if (reference && !reference->has_timed) reference = nullptr;
    for (const Cell* cell : members) {
      const std::vector<stats::Sample> samples = cells.samples(*cell, "time");
      g.reps = std::min(g.reps, static_cast<int>(samples.size()));
      for (const stats::Sample& s : samples) g.last_rep = std::max(g.last_rep, static_cast<int>(s.rep));
      double width;
      std::string what;
      if (reference && members.size() > 1) {
        if (cell == reference) continue;  // its ratios to the others say it
        const stats::Ratio r = cells.ratio(*cell, *reference, "time");
        width = half_width(r.value, r.ci_low, r.ci_high);
        what = cell->allocator + "/" + reference->allocator;
      } else {  // one allocator (or no reference): its own time's interval
        const stats::LogEstimate e = cells.estimate(*cell, "time");
        width = half_width(e.center, e.low, e.high);
        what = cell->allocator;
      }
      if (g.widest.empty() || width > g.half_width) {
        g.half_width = width;
        g.widest = what;
      }
    }
    out.push_back(g);
  }
  return out;
}

std::string describe(const GroupPrecision& g) {
  char width[32];
  if (std::isinf(g.half_width)) std::snprintf(width, sizeof width, "no interval yet");
  else std::snprintf(width, sizeof width, "±%.1f%%", g.half_width * 100.0);
  return g.workload + " t" + std::to_string(g.threads) + ": " + width + " (" + g.widest + ", " +
         std::to_string(g.reps) + " reps)";
}

}  // namespace allocstamp
