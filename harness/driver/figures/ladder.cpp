// ladder.cpp — the figure kind "memory": the memory ladder per workload: requested, usable, heap, RSS, PSS, what the allocator holds (ladder.gp: bars).
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
    // The allocator's resident bytes as memprof measured them (the resident
    // pages of the mappings the allocator made: every preloaded allocator),
    // else as it reports them (glibc, through its own mappings; an older
    // folder). jemalloc's and gperftools' own figures count pages never
    // touched (jemalloc's stats.resident is a maximum): not preferred.
    // Mapped bytes are not memory in use: never a resident bar.
    std::vector<std::string> as_reported, silent;
    std::map<std::string, std::vector<std::string>> absent;  // measure -> allocators
    for (const auto& a : make.index.allocators(group, t)) {
      const char* resident_key = keys::alloc_os_resident_bytes;
      if (make.index.values_of(group, t, a, keys::alloc_os_resident_bytes).empty()) {
        resident_key = keys::alloc_resident_bytes;
        if (make.index.values_of(group, t, a, keys::alloc_resident_bytes).empty()) silent.push_back(a);
        else as_reported.push_back(a);
      }
      const std::vector<std::pair<const char*, double>> measures = {{keys::heap_requested_peak_bytes, kMiB},
                                                                     {keys::heap_usable_peak_bytes, kMiB},
                                                                     {resident_key, kMiB},
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
    Figure f = make.figure(name, "Memory of " + group + " at " + threads_text(t) + make.context({group}) + ": median, MiB",
                      "For each allocator, left to right: the peak of live requested bytes, the peak of live usable "
                      "bytes (with the allocator's rounding), the bytes the allocator holds resident (the resident "
                      "pages of the mappings it made, measured by memprof; see the notes for any it reports itself) and "
                      "the process's RSS and PSS at the end of the measured phase; the steps of the ladder are what "
                      "each layer adds to what the program asked for. Bars are medians over the profiled runs, "
                      "whiskers the lowest and highest run." + make.runs_text(false, {group}, t));
    f.group = group;
    make.note_left_out(f, group, t);
    if (!as_reported.empty())
      f.notes.push_back("allocator resident as the allocator reports it (glibc: the resident pages of its heaps and "
                        "mmapped chunks), not measured by memprof: " + joined(as_reported));
    if (!silent.empty()) {
      f.notes.push_back("allocator resident not available for " + joined(silent) +
                        " (neither it nor memprof measured it: profiled with an older memprof?): bar left out");
      bars.explained.insert(bars.series[2]);
    }
    for (const auto& [measure, list] : absent) {
      f.notes.push_back("no " + measure + " for " + joined(list) + ": bar left out");
      bars.explained.insert(measure);
    }
    make.add_bars(std::move(f), bars, "MiB", "no run reported its memory (profiled with --profile=none?)");
  }
}

}  // namespace allocstamp::figures
