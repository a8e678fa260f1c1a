// findings.cpp — the report's findings (findings.h), from the cells'
// summaries: the same numbers the summary tables show.
#include "findings.h"

#include <algorithm>
#include <cmath>

#include "format.h"

namespace allocstamp {

namespace {

std::string ratio_text(const CellSummary& c) {
  return number_text("%.3f", c.vs_reference.value) + "x [" + number_text("%.3f", std::max(0.0, c.vs_reference.ci_low)) +
         ", " + number_text("%.3f", c.vs_reference.ci_high) + "]";
}

std::string names(const std::vector<const CellSummary*>& cells) {
  std::string out;
  for (const CellSummary* c : cells) out += (out.empty() ? "" : ", ") + c->allocator;
  return out;
}

// The time part: who is faster than the reference, by how much, or that none separates.
std::string time_finding(const ResultsView& view, const std::vector<const CellSummary*>& cells) {
  std::vector<const CellSummary*> faster, slower, compared;
  const CellSummary* reference = nullptr;
  for (const CellSummary* c : cells) {
    if (c->standing == "reference") reference = c;
    if (c->standing == "faster") faster.push_back(c);
    if (c->standing == "slower") slower.push_back(c);
    if (c->standing == "faster" || c->standing == "slower" || c->standing == "indistinguishable") compared.push_back(c);
  }
  if (!reference) return "no " + view.reference + " run to compare times with";
  if (compared.empty()) return "too few timed runs to compare times (use --reps 3 or more)";
  if (!faster.empty()) {
    std::sort(faster.begin(), faster.end(),
              [](const CellSummary* a, const CellSummary* b) { return a->vs_reference.value < b->vs_reference.value; });
    std::string out = "fastest " + faster[0]->allocator + ", " + ratio_text(*faster[0]) + " " + view.reference + "'s time";
    if (faster.size() > 1) {
      std::vector<const CellSummary*> rest(faster.begin() + 1, faster.end());
      out += "; also faster than " + view.reference + ": " + names(rest);
    }
    if (!slower.empty()) out += "; slower: " + names(slower);
    return out;
  }
  if (slower.size() == compared.size()) return view.reference + " fastest: every other allocator is slower (" + names(slower) + ")";
  std::string out = "no allocator is faster than " + view.reference + " (every 95% interval of the ratio reaches 1)";
  if (!slower.empty()) out += "; slower: " + names(slower);
  return out;
}

// The memory part: the lowest median RSS at the end of the measured phase.
std::string memory_finding(const ResultsView& view, const std::vector<const CellSummary*>& cells) {
  const CellSummary *leanest = nullptr, *reference = nullptr;
  int fewest = 1 << 30;
  for (const CellSummary* c : cells) {
    if (!std::isfinite(c->rss_kb)) continue;
    if (!leanest || c->rss_kb < leanest->rss_kb) leanest = c;
    if (c->allocator == view.reference) reference = c;
    fewest = std::min(fewest, c->profiled_runs);
  }
  if (!leanest) return "no RSS measured (no profiled run)";
  std::string out = "leanest " + leanest->allocator + ", RSS " + number_text("%.1f", leanest->rss_kb / 1024.0) + " MiB";
  if (reference && reference != leanest)
    out += " against " + view.reference + "'s " + number_text("%.1f", reference->rss_kb / 1024.0) + " MiB (" +
           number_text("%+.0f", 100.0 * (leanest->rss_kb / reference->rss_kb - 1)) + "%)";
  out += fewest < 3 ? " — medians of at least " + std::to_string(fewest) + " profiled run(s) each, no interval"
                    : " — medians of the profiled runs";
  return out;
}

}  // namespace

std::vector<std::string> findings(const ResultsView& view, const std::vector<CellSummary>& cells) {
  std::vector<std::string> out;
  for (const std::string& group : view.groups)
    for (int t : view.threads) {
      std::vector<const CellSummary*> here;
      for (const CellSummary& c : cells)
        if (c.group == group && c.threads == t) here.push_back(&c);
      if (here.empty()) continue;
      out.push_back(group + " at " + std::to_string(t) + (t == 1 ? " thread: " : " threads: ") + time_finding(view, here) +
                    "; " + memory_finding(view, here) + ".");
    }
  return out;
}

}  // namespace allocstamp
