// ladder.cpp — the figure kind "ladder": the memory ladder per workload: requested, usable, heap, RSS, PSS, what the allocator holds (bars.gp).
#include "figures/figure_kit.h"
#include "key_names.h"

namespace allocstamp::figures {

void ladder_figures(FigureMaker& make) {
  for (const auto& group : make.view.cells.groups) {
    int t = make.index.top_threads(group);
    std::string name = "memory-" + group;
    if (t == 0) {
      make.skip(file_stem(name), "no ok run of " + group);
      continue;
    }
    Bars bars;
    bars.series = {"requested peak", "usable peak", "allocator resident (end)", "RSS (end)", "PSS (end)"};
    // Only resident bytes go in the ladder: an allocator that reports only
    // what it has mapped (glibc, mimalloc) gets no bar there, its mapped
    // bytes a note (mapped is not memory in use: the two are not one bar).
    std::vector<std::string> mapped, silent;
    std::map<std::string, std::vector<std::string>> absent;  // measure -> allocators
    for (const auto& a : make.index.allocators(group, t)) {
      double holds = make.index.median_of(group, t, a, keys::alloc_resident_bytes);
      if (std::isnan(holds)) {
        double map = make.index.median_of(group, t, a, keys::alloc_mapped_bytes);
        if (std::isnan(map)) silent.push_back(a);
        else mapped.push_back(a + " " + number_text("%.1f", map / kMiB) + " MiB");
      }
      const std::vector<std::pair<const char*, double>> measures = {{keys::heap_requested_peak_bytes, kMiB},
                                                                     {keys::heap_usable_peak_bytes, kMiB},
                                                                     {keys::alloc_resident_bytes, kMiB},
                                                                     {keys::rss_kb, 1024.0},
                                                                     {keys::pss_kb, 1024.0}};
      std::vector<Value> row;
      for (size_t m = 0; m < measures.size(); ++m) {
        std::vector<double> v = make.index.values_of(group, t, a, measures[m].first);
        for (double& x : v) x /= measures[m].second;
        if (v.empty() && m != 2) absent[bars.series[m]].push_back(a);
        row.push_back(spread_bar(v));
      }
      bars.rows.push_back(a);
      bars.values.push_back(row);
    }
    bars.errorbars = true;
    Figure f = make.figure(name, "bars", "Memory of " + group + " at " + threads_text(t) + make.context({group}) + ": median, MiB",
                      "For each allocator, left to right: the peak of live requested bytes, the peak of live usable "
                      "bytes (with the allocator's rounding), the bytes the allocator holds resident and "
                      "the process's RSS and PSS at the end of the measured phase; the steps of the ladder are what "
                      "each layer adds to what the program asked for. Bars are medians over the profiled runs, "
                      "whiskers the lowest and highest run." + make.runs_text(false, {group}, t));
    f.group = group;
    if (!mapped.empty())
      f.notes.push_back("no resident figure, only mapped bytes (not in the ladder): " + joined(mapped));
    if (!silent.empty())
      f.notes.push_back(joined(silent) + " reports nothing about its own memory: its 'allocator resident' bar is left out");
    for (const auto& [measure, list] : absent)
      f.notes.push_back("no " + measure + " for " + joined(list) + ": bar left out");
    make.add_bars(std::move(f), bars, "MiB", "no run reported its memory (profiled with --profile=none?)");
  }
}

}  // namespace allocstamp::figures
