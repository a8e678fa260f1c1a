// speedup.cpp — the figure kind "speedup": speedup over one thread, per workload (speedup.gp).
#include "figures/figure_kit.h"

namespace allocstamp::figures {

void speedup_figures(FigureMaker& make) {
  if (make.view.cells.threads.size() < 2)
    return make.skip("speedup", "only " + threads_text(make.view.cells.threads.front()) +
                               " ran: no speedup figure (run with --threads=1,2,4 for one)");
  for (const auto& group : make.view.cells.groups) {
    std::string name = "speedup-" + group;
    // The thread counts some allocator has a time at (simulated runs alone,
    // as --simulate-threads beyond --threads makes, have none: drawn, they
    // were a tick of nothing).
    std::vector<int> counts;
    for (int t : make.view.cells.threads)
      for (const auto& a : make.view.cells.allocators)
        if (const CellSummary* c = make.cell(group, t, a); c && c->time.n > 0) {
          counts.push_back(t);
          break;
        }
    if (counts.size() < 2) {
      make.skip(file_stem(name), group + " ran ok at one thread count only: no speedup");
      continue;
    }
    std::ostringstream text;
    text << label("threads");
    for (const auto& a : make.view.cells.allocators) text << ' ' << label(a) << ' ' << label(a + " low") << ' ' << label(a + " high");
    text << '\n';
    // Each allocator against its own time at the group's fewest threads, the
    // base the title, the axis and the ideal line name: one without a time
    // there has no line (scaled from its own first count it drew perfect
    // scaling from 2 to 4 threads as half the ideal from 1).
    std::map<std::string, const CellSummary*> base;
    for (const auto& a : make.view.cells.allocators)
      if (const CellSummary* c = make.cell(group, counts.front(), a); c && c->time.n > 0) base[a] = c;
    std::map<std::string, std::vector<std::string>> gaps;  // allocator -> thread counts it has no time at
    for (int t : counts) {
      text << t;
      for (const auto& a : make.view.cells.allocators) {
        const CellSummary* c = make.cell(group, t, a);
        Value v;
        if (base.count(a) && !(c && c->time.n > 0)) gaps[a].push_back(std::to_string(t));
        if (base.count(a) && c && c->time.n > 0) {
          if (c == base[a]) {
            v = {1, 1, 1};
          } else {
            v = ratio_bar(make.view.cells.ratio(*base[a]->cell, *c->cell, "time"));
          }
        }
        text << ' ' << num(v.value) << ' ' << num(v.low) << ' ' << num(v.high);
      }
      text << '\n';
    }
    std::string from = threads_text(counts.front());
    // A workload whose every thread does the whole work (churn, intset, the
    // stress programs) ideally takes as long at N threads as at one: its
    // ideal line is flat, not linear.
    const bool per_thread = Meta{make.view.meta, true}.work_per_thread(make.view.cells.workload_of(group));
    Figure f = make.figure(name, "Speedup of " + group + make.context({group}) + ", each allocator against itself at " + from,
                      "Each line is an allocator's geometric-mean time at " + from +
                          " divided by its geometric-mean time at N threads, with a 95% confidence interval; the dashed line is " +
                          (per_thread ? "the ideal for a workload whose every thread does the whole work: the same "
                                        "time at every thread count (1)."
                                      : "linear speedup (the threads share a fixed amount of work).") +
                          make.runs_text(true, {group}, 0));
    f.group = group;
    set_number(f, "n", static_cast<double>(make.view.cells.allocators.size()));
    set_number(f, "base", counts.front());
    set_text(f, "ideal", per_thread ? "flat" : "linear");
    std::string ticks;
    for (int t : counts) ticks += (ticks.empty() ? "" : ", ") + std::to_string(t);
    set_text(f, "ticks", ticks);
    std::vector<std::string> absent;
    for (const auto& a : make.view.cells.allocators)
      if (!base.count(a)) absent.push_back(a);
    if (!absent.empty())
      f.notes.push_back("no time of " + joined(absent) + " at " + from + ", every line's base: line left out");
    for (const auto& [a, at] : gaps)
      f.notes.push_back("no time of " + a + " at " + joined(at) + " threads (no ok timed run): its line skips them");
    make.add(std::move(f), text.str());
  }
}

}  // namespace allocstamp::figures
