// aborts.cpp — the figure kind "aborts": the transactions' abort rate per thread count (aborts.gp: bars).
#include "figures/figure_kit.h"

namespace allocstamp::figures {

void abort_figures(FigureMaker& make) {
  bool any_tx = false;
  for (int t : make.view.cells.threads) {
    Bars bars;
    bars.series = make.view.cells.allocators;
    bars.errorbars = true;
    bool nonzero = false;
    for (const auto& group : make.view.cells.groups) {
      std::vector<Value> row;
      bool any = false;
      for (const auto& a : make.view.cells.allocators) {
        const CellSummary* c = make.cell(group, t, a);
        Value v = c ? spread_bar(c->abort_pct) : Value{};
        any = any || std::isfinite(v.value);
        nonzero = nonzero || v.high > 0;
        row.push_back(v);
      }
      if (!any) continue;
      bars.rows.push_back(group);
      bars.values.push_back(row);
    }
    if (bars.rows.empty()) continue;
    any_tx = true;
    std::string name = "aborts-t" + std::to_string(t);
    if (!nonzero) {
      make.skip(name, "no transaction attempt aborted at " + threads_text(t));
      continue;
    }
    Figure f = make.figure(name,
                      "Abort rate of transactions, " + threads_text(t) + make.context(bars.rows) + ": median, lowest and highest run",
                      "Each bar is the share of an allocator's transaction attempts that aborted (1 - commits/attempts): "
                      "the median run's, its whisker from the lowest to the highest run's, so a tall bar of one run "
                      "among runs near 0 shows as such (a 0 above a slot: no attempt aborted in the median run; no 0 "
                      "and no bar: no run). The figure measures how often attempts aborted, not why." +
                          make.runs_text(true, bars.rows, t));
    set_number(f, "zerolabels", 1);
    make.add_bars(std::move(f), bars, "aborted attempts (% of attempts)", "no transactional run");
  }
  if (!any_tx) make.skip("aborts", "no ok run made transactions (tx_attempts_count > 0): no abort-rate figure");
}

}  // namespace allocstamp::figures
