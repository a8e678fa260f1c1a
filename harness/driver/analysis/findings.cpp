// findings.cpp — the report's findings (findings.h), from the cells'
// summaries: the same numbers the summary tables show.
#include "analysis/findings.h"

#include <algorithm>
#include <cmath>

#include "analysis/cell_summary.h"
#include "analysis/mechanisms.h"
#include "model/format.h"

namespace allocstamp {

namespace {

std::string ratio_text(const stats::Ratio& r) {
  return number_text("%.3f", r.value) + "x [" + number_text("%.3f", r.ci_low) + ", " + number_text("%.3f", r.ci_high) + "]";
}

std::string names(const std::vector<const CellSummary*>& cells) {
  std::string out;
  for (const CellSummary* c : cells) out += (out.empty() ? "" : ", ") + c->allocator;
  return out;
}

// Who stands apart from the reference in one direction, by how much, or that
// none does: the time part (faster, slower) and the memory part (leaner, heavier).
struct Measure {
  const char* what;     // "time", "peak RSS"
  const char* better;   // "faster", "leaner"
  const char* worse;    // "slower", "heavier"
  const char* best;     // "fastest", "leanest"
  std::string CellSummary::*standing;
  stats::Ratio CellSummary::*ratio;
  stats::LogEstimate CellSummary::*estimate;  // the cell's own: none without an ok run to take it from
};
const Measure kTime{"time", "faster", "slower", "fastest", &CellSummary::standing, &CellSummary::time_vs_reference,
                    &CellSummary::time};
const Measure kMemory{"peak RSS", "leaner", "heavier", "leanest", &CellSummary::memory_standing,
                      &CellSummary::memory_vs_reference, &CellSummary::peak_rss_kb};

std::string finding(const std::string& reference, const std::vector<const CellSummary*>& cells, const Measure& m) {
  std::vector<const CellSummary*> better, worse, compared, unmeasured, too_short, unstable;
  bool has_reference = false;
  for (const CellSummary* c : cells) {
    const std::string& s = c->*m.standing;
    if (s == "reference") has_reference = true;
    if (s == m.better) better.push_back(c);
    if (s == m.worse) worse.push_back(c);
    if (s == m.better || s == m.worse || s == "indistinguishable") compared.push_back(c);
    if (s.empty() && (c->*m.estimate).n == 0) unmeasured.push_back(c);  // no ok run recorded one
    if (s == "too short") too_short.push_back(c);
    if (s == "unstable") unstable.push_back(c);
  }
  if (!has_reference) return std::string("no ") + m.what + " of " + reference + " to compare with";
  // Allocators without an ok run are said apart: no run, not too few, and no standing either way.
  const std::string none = unmeasured.empty() ? std::string()
                                              : std::string("no ") + m.what + " for " + names(unmeasured) +
                                                    " (no ok run recorded one)";
  if (compared.empty()) {
    // Why none was compared: more runs do not help a phase too short to time, or one in two modes.
    std::string why;
    if (!too_short.empty())
      why = "too short to time (a measured phase under " + number_text("%g", kShortestTimedPhaseNs / 1e6) +
            " ms: use a larger --size) for " + names(too_short);
    if (!unstable.empty())
      why += (why.empty() ? "" : "; ") + std::string("unstable (the timed runs fall in two modes) for ") + names(unstable);
    const std::size_t left = cells.size() - 1 - unmeasured.size() - too_short.size() - unstable.size();
    if (left > 0 || (why.empty() && none.empty()))
      why = std::string("too few timed runs to compare ") + m.what + "s (use --reps 3 or more)" +
            (why.empty() ? "" : "; " + why);
    return why.empty() ? none : why + (none.empty() ? "" : "; " + none);
  }
  // Those compared with none: said beside the answer, which speaks for the compared alone.
  std::string apart = none;
  if (!too_short.empty())
    apart += (apart.empty() ? "" : "; ") + std::string("too short to time (a measured phase under ") +
             number_text("%g", kShortestTimedPhaseNs / 1e6) + " ms) for " + names(too_short);
  if (!unstable.empty())
    apart += (apart.empty() ? "" : "; ") + std::string("unstable (two modes) for ") + names(unstable);
  const std::string also = apart.empty() ? std::string() : "; " + apart;
  auto by_ratio = [&](const CellSummary* a, const CellSummary* b) { return (a->*m.ratio).value < (b->*m.ratio).value; };
  if (!better.empty()) {
    std::sort(better.begin(), better.end(), by_ratio);
    std::string out = std::string(m.best) + " " + better[0]->allocator + ", " + ratio_text(better[0]->*m.ratio) + " " +
                      reference + "'s " + m.what;
    if (better.size() > 1)
      out += std::string("; also ") + m.better + " than " + reference + ": " +
             names({better.begin() + 1, better.end()});
    if (!worse.empty()) out += std::string("; ") + m.worse + ": " + names(worse);
    return out + also;
  }
  if (worse.size() == compared.size())
    return reference + " " + m.best + ": every other allocator " + (unmeasured.empty() ? "" : "measured ") + "is " +
           m.worse + " (" + names(worse) + ")" + also;
  const stats::Ratio& any = compared.front()->*m.ratio;  // every ratio of the family is shown at one level
  std::string out = std::string("no allocator is ") + m.better + " than " + reference + " (every " +
                    number_text("%.3g", 100 * any.level) + "% interval of the " + m.what + " ratio" +
                    (too_short.empty() && unstable.empty() ? "" : " of those compared") + " reaches 1)";
  if (!worse.empty()) out += std::string("; ") + m.worse + ": " + names(worse);
  return out + also;
}

std::string threads_text(int t) { return std::to_string(t) + (t == 1 ? " thread" : " threads"); }

// Map workloads answer in bytes per element: the containers from the leanest
// by requested bytes (the program's own, the same under every allocator), at
// the fewest threads; the RSS the fill added, by allocator, where measured.
std::vector<std::string> map_findings(const ResultsView& view, const std::vector<CellSummary>& cells) {
  int fewest = 0;
  for (const CellSummary& c : cells)
    if (std::isfinite(c.requested_per_element) && (fewest == 0 || c.threads < fewest)) fewest = c.threads;
  std::vector<const CellSummary*> maps;  // one per container: the reference's, else the first allocator's
  for (const std::string& group : view.cells.groups) {
    const CellSummary* pick = nullptr;
    for (const CellSummary& c : cells)
      if (c.group == group && c.threads == fewest && std::isfinite(c.requested_per_element) &&
          (!pick || c.allocator == view.cells.reference))
        pick = &c;
    if (pick) maps.push_back(pick);
  }
  if (maps.empty()) return {};
  std::stable_sort(maps.begin(), maps.end(), [](const CellSummary* a, const CellSummary* b) {
    return a->requested_per_element < b->requested_per_element;
  });
  auto rss_of = [&](const std::string& group) {
    std::string out;
    for (const CellSummary& c : cells)
      if (c.group == group && c.threads == fewest && std::isfinite(c.rss_per_element))
        out += (out.empty() ? "" : ", ") + c.allocator + " " + number_text("%.1f", c.rss_per_element);
    return out.empty() ? out : " (RSS added by the fill, B/element: " + out + ")";
  };
  std::string text = "Bytes per element at " + threads_text(fewest) + ": leanest " + maps[0]->group + ", " +
                     number_text("%.1f", maps[0]->requested_per_element) + " B requested" + rss_of(maps[0]->group);
  for (std::size_t i = 1; i < maps.size(); ++i)
    text += std::string(i == 1 ? "; then " : ", ") + maps[i]->group + " " +
            number_text("%.1f", maps[i]->requested_per_element);
  return {text + "."};
}

}  // namespace

std::vector<std::string> findings(const ResultsView& view, const std::vector<CellSummary>& cells) {
  std::vector<std::string> out = map_findings(view, cells);
  const std::string& reference = view.cells.reference;
  const bool alone = view.cells.allocators.size() == 1;
  // The mechanisms named below: at their family's level (issue 49).
  const stats::FamilyCorrection mechanisms =
      mechanism_family(view.cells, !cells.empty() && cells.front().time_family.per_comparison);
  for (const std::string& group : view.cells.groups)
    for (int t : view.cells.threads) {
      std::vector<const CellSummary*> here;
      for (const CellSummary& c : cells)
        if (c.group == group && c.threads == t) here.push_back(&c);
      if (here.empty()) continue;
      std::string text = group + " at " + threads_text(t) + ": ";
      if (alone) {
        // Nothing to compare: what was measured, with its interval.
        const CellSummary& c = *here.front();
        text += "only " + c.allocator + " ran";
        if (c.time.n) text += "; time " + number_text("%.2f", c.time.center / 1e6) + " ms";
        if (std::isfinite(c.time.low))
          text += " [" + number_text("%.2f", c.time.low / 1e6) + ", " + number_text("%.2f", c.time.high / 1e6) + "]";
        if (c.peak_rss_kb.n) text += ", peak RSS " + number_text("%.1f", c.peak_rss_kb.center / 1024) + " MiB";
        if (std::isfinite(c.peak_rss_kb.low))
          text += " [" + number_text("%.1f", c.peak_rss_kb.low / 1024) + ", " + number_text("%.1f", c.peak_rss_kb.high / 1024) + "]";
        out.push_back(text + ".");
        continue;
      }
      out.push_back(text + finding(reference, here, kTime) + "; " + finding(reference, here, kMemory) + ".");
      // Why, as far as it was measured: for each allocator whose time separates.
      const Cell* ref = view.cells.find(group, t, reference);
      for (const CellSummary* c : here) {
        if (!ref || !(c->standing == "faster" || c->standing == "slower")) continue;
        int compared = 0;
        const std::vector<Mechanism> found =
            separating_mechanisms(view.cells, *c->cell, *ref, &compared, mechanisms.level);
        out.push_back(group + " at " + threads_text(t) + ", " + c->allocator + " " + c->standing + " (" +
                        ratio_text(c->time_vs_reference) + " " + reference + "'s time): " +
                        mechanisms_sentence(found, reference, compared) +
                        [&] {
                          const std::string own = unmatched_kernel_calls(view.cells, *c->cell, *ref, reference);
                          return own.empty() ? std::string() : "; " + own;
                        }() + ".");
      }
    }
  return out;
}

}  // namespace allocstamp
