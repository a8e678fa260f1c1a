// time.cpp — the figure kind "time": every workload's time relative to the
// reference allocator at once, per thread count: a heatmap of workloads x
// allocators (time.gp), colour the log of the ratio, its value printed.
#include "figures/figure_kit.h"

namespace allocstamp::figures {

void time_figures(FigureMaker& make) {
  if (make.view.cells.allocators.size() < 2)
    return make.skip("time", "only " + make.view.cells.allocators.front() + " ran: no other allocator to compare (the summary table has its times)");
  const std::string& reference = make.view.cells.reference;
  std::vector<std::string> columns;  // the reference is 1 by definition: not a column
  for (const auto& a : make.view.cells.allocators)
    if (a != reference) columns.push_back(a);
  for (int t : make.view.cells.threads) {
    std::vector<std::string> rows, missing, too_short, unstable, reference_only;
    std::vector<std::vector<std::pair<double, bool>>> ratios;
    for (const auto& group : make.view.cells.groups) {
      std::vector<std::pair<double, bool>> row;
      std::vector<std::string> absent;  // no run of theirs at all (an interrupted sweep's last allocators)
      bool any = false;
      for (const auto& a : columns) {
        const CellSummary* c = make.cell(group, t, a);
        std::pair<double, bool> v{kNaN, false};
        if (c && c->standing == "too short") {
          too_short.push_back(a + " on " + group);
        } else if (c && c->standing == "unstable") {
          unstable.push_back(a + " on " + group);
        } else if (c && c->time.n > 0 && std::isfinite(c->time_vs_reference.value)) {
          v = {c->time_vs_reference.value, c->standing == "faster" || c->standing == "slower"};
        } else if (c) {
          missing.push_back(a + " on " + group);
        } else {
          absent.push_back(a + " on " + group);
        }
        any = any || c;
        row.push_back(v);
      }
      if (!any) {
        if (make.cell(group, t, reference)) reference_only.push_back(group);
        continue;
      }
      missing.insert(missing.end(), absent.begin(), absent.end());
      rows.push_back(group);
      ratios.push_back(row);
    }
    if (rows.empty()) continue;
    std::string ref = make.reference_text();
    // The time family's level (issue 49): 95% where there is nothing to correct.
    const stats::FamilyCorrection& correction = make.cells.front().time_family;
    const std::string level = level_text(correction);
    const std::string family = correction.per_comparison ? "uncorrected, --per-comparison"
                               : correction.m <= 1     ? "one comparison"
                                                       : "the folder's " + std::to_string(correction.m) +
                                                         " time ratios corrected together";
    Figure f = make.figure("time-t" + std::to_string(t),
                           "Time relative to " + ref + ", " + threads_text(t) + make.context(rows) +
                               ": geometric mean; * where the " + level + " CI leaves 1 out",
                           "Each cell is an allocator's geometric-mean time for the workload at " + threads_text(t) +
                               " divided by " + reference + "'s (the logs paired by repetition): below 1 (blue) is "
                               "faster than " + reference + ", above (red) slower, on a log scale from 1/4 to 4; * "
                               "marks a ratio whose confidence interval at " + level + " leaves 1 out, its standing (" +
                               family + "; the summary tables give the intervals). " + reference + " itself is 1 by definition and has no column." +
                               make.runs_text(true, rows, t));
    if (!missing.empty())
      f.notes.push_back("no ok run (or no ok " + reference + " run to compare with) for " + joined(missing) +
                        ": cells left blank");
    if (!reference_only.empty())
      f.notes.push_back("only " + reference + " ran " + joined(reference_only) + " at " + threads_text(t) +
                        ": nothing to compare, row left out");
    if (!unstable.empty())
      f.notes.push_back("unstable (its or the reference's timed runs fall in two modes): " + joined(unstable) +
                        ": cells left blank");
    if (!too_short.empty())
      f.notes.push_back("too short to time (a measured phase under " + num(kShortestTimedPhaseNs / 1e6) + " ms): " +
                        joined(too_short) + ": cells left blank");
    make.add_heatmap(std::move(f), rows, columns, ratios, "time / " + reference + "'s time (log scale)",
                     "no ok run reported a time at " + threads_text(t));
  }
}

}  // namespace allocstamp::figures
