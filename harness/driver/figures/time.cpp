// time.cpp — the figure kind "time": time relative to the reference allocator, per thread count (bars.gp).
#include "figures/figure_kit.h"

namespace allocstamp::figures {

void time_figures(FigureMaker& make) {
  if (make.view.cells.allocators.size() < 2)
    return make.skip("time", "only " + make.view.cells.allocators.front() + " ran: no other allocator to compare (the summary table has its times)");
  for (int t : make.view.cells.threads) {
    Bars bars;
    bars.series = make.view.cells.allocators;
    bars.errorbars = true;
    bars.refline = 1;
    std::vector<std::string> missing;
    for (const auto& group : make.view.cells.groups) {
      std::vector<Value> row;
      bool any = false;
      for (const auto& a : make.view.cells.allocators) {
        const CellSummary* c = make.cell(group, t, a);
        Value v;
        if (c && c->time.n > 0 && std::isfinite(c->time_vs_reference.value)) {
          v = ratio_bar(c->time_vs_reference);
        } else if (c) {
          missing.push_back(a + " on " + group);
        }
        any = any || c;
        row.push_back(v);
      }
      if (!any) continue;
      bars.rows.push_back(group);
      bars.values.push_back(row);
    }
    if (bars.rows.empty()) continue;
    std::string ref = make.reference_text();
    Figure f = make.figure("time-t" + std::to_string(t), "bars",
                      "Time relative to " + ref + ", " + threads_text(t) + make.context(bars.rows) + ": geometric mean, 95% CI",
                      "Each bar is an allocator's geometric-mean time for the workload at " + threads_text(t) +
                          " divided by " + make.view.cells.reference + "'s, with a 95% confidence interval (logs paired by "
                          "repetition); below the dashed line at 1 is faster than " +
                          make.view.cells.reference + "." + make.runs_text(true, bars.rows, t));
    if (!missing.empty())
      f.notes.push_back("no ok run (or no ok " + make.view.cells.reference + " run to compare with) for " + joined(missing) +
                        ": bars left out");
    make.add_bars(std::move(f), bars, "time / " + make.view.cells.reference + "'s time (lower is faster)",
             "no ok run reported a time at " + threads_text(t));
  }
}

}  // namespace allocstamp::figures
