// variants_table.cpp — the variants-against-their-base table (variants_table.h).
#include "output/variants_table.h"

#include <algorithm>

#include "model/format.h"

namespace allocstamp {

namespace {

std::string ratio_with_interval(const stats::Ratio& r) { return ratio_interval_text(r.value, r.ci_low, r.ci_high); }

// The variables the variant's runs set beyond its base's: its settings.
std::string settings_of(const CellSummary& variant, const std::vector<CellSummary>& cells) {
  for (const CellSummary& c : cells)
    if (c.group == variant.group && c.threads == variant.threads && c.allocator == variant.base) {
      std::string out;
      const std::string& mine = variant.cell->id.alloc_env;
      const std::string& theirs = c.cell->id.alloc_env;
      std::size_t start = 0;
      while (start <= mine.size()) {
        std::size_t end = mine.find(';', start);
        if (end == std::string::npos) end = mine.size();
        const std::string item = mine.substr(start, end - start);
        if (!item.empty() && (";" + theirs + ";").find(";" + item + ";") == std::string::npos)
          out += (out.empty() ? "" : " ") + item;
        start = end + 1;
      }
      return out.empty() ? "-" : out;
    }
  return "-";
}

bool has_base(const CellSummary& c) { return !c.base.empty() && (c.base_standing != "" || c.base_memory_standing != ""); }

}  // namespace

Block variants_table(const ResultsView& view, const std::vector<CellSummary>& cells) {
  std::vector<const CellSummary*> rows;
  for (const CellSummary& c : cells)
    if (has_base(c)) rows.push_back(&c);
  std::stable_sort(rows.begin(), rows.end(), [&](const CellSummary* a, const CellSummary* b) {
    if (a->base != b->base) return a->base < b->base;
    if (a->allocator != b->allocator) return a->allocator < b->allocator;
    const auto& groups = view.cells.groups;
    auto ga = std::find(groups.begin(), groups.end(), a->group), gb = std::find(groups.begin(), groups.end(), b->group);
    if (ga != gb) return ga < gb;
    return a->threads < b->threads;
  });
  Block t = table({{"variant", "base", "workload", "settings", "threads", "time vs base", "time", "peak RSS vs base",
                    "memory"}},
                  4);
  t.code_columns = 2;
  t.align = "llllrrlrl";
  for (const CellSummary* c : rows)
    t.rows.push_back({c->allocator, c->base, c->group, settings_of(*c, cells), std::to_string(c->threads),
                      ratio_with_interval(c->time_vs_base), c->base_standing.empty() ? "-" : c->base_standing,
                      ratio_with_interval(c->memory_vs_base),
                      c->base_memory_standing.empty() ? "-" : c->base_memory_standing});
  return t;
}

std::string variants_table_legend(const std::vector<CellSummary>& cells) {
  return "Each variant (an allocator with settings, BASE:VARIANT) against its base in the same workload and thread "
         "count: the quotient of the timed runs' geometric means (time) and of their peak RSS (wait4), each with its "
         "interval, the logs paired repetition by repetition as the sweep interleaves them. A setting changes the "
         "answer only where the interval leaves 1 out (faster or slower, leaner or heavier); else indistinguishable. "
         "These ratios are in the folder's time and memory families with the ratios to the reference: " +
         (cells.empty() ? std::string("95% intervals") : "intervals at " + level_text(cells.front().time_family) +
                                                              " (time) and " + level_text(cells.front().memory_family) +
                                                              " (memory)") +
         ". Settings: the variables the variant's runs had that its base's did not.";
}

Block variant_changes(const std::vector<CellSummary>& cells) {
  Block t = table({{"workload", "threads", "variant", "base", "time vs base", "peak RSS vs base"}}, 4);
  for (const CellSummary& c : cells) {
    if (!has_base(c)) continue;
    const bool time = c.base_standing == "faster" || c.base_standing == "slower";
    const bool memory = c.base_memory_standing == "leaner" || c.base_memory_standing == "heavier";
    if (!time && !memory) continue;
    t.rows.push_back({c.group, std::to_string(c.threads), c.allocator, c.base,
                      time ? c.base_standing + " " + ratio_with_interval(c.time_vs_base) : "-",
                      memory ? c.base_memory_standing + " " + ratio_with_interval(c.memory_vs_base) : "-"});
  }
  return t;
}

}  // namespace allocstamp
