// micro.cpp — the figure kind "micro": the micro-benchmarks' times (micro.gp: lines, and bars through bars.gp).
#include "figures/figure_kit.h"
#include "key_names.h"

namespace allocstamp::figures {

void micro_figures(FigureMaker& make) {
  std::vector<MicroRow> rows = load_micro(make.view.dir);
  std::map<std::string, std::string> allocator_of;  // run_id of an ok run -> its cell's allocator
  std::map<std::string, bool> ok;
  for (const Cell& c : make.view.cells.cells)
    for (const CsvRow* r : c.ok) {
      allocator_of[make.view.table->text(*r, keys::run_id)] = c.allocator;
      ok[make.view.table->text(*r, keys::run_id)] = true;
    }
  // (benchmark, threads) -> allocator -> ns per op of every timed repetition
  std::map<std::pair<std::string, long>, std::map<std::string, std::vector<stats::Sample>>> samples;
  std::map<std::string, long> size_of;
  for (const MicroRow& m : rows) {
    std::string id = std::to_string(m.run_id);
    if (m.kind != RunKind::timed || !ok[id]) continue;
    // Each benchmark repetition of each run its own sample: no two allocators' share a run, so unpaired.
    samples[{m.benchmark, m.threads}][allocator_of[id]].push_back({m.run_id * 1000 + m.repetition, m.real_ns_per_op});
    size_of[m.benchmark] = m.size_bytes;
  }
  if (samples.empty()) return make.skip("micro", "no timed micro-benchmark run (the micro workloads): no micro figures");
  std::set<long> thread_counts;
  for (const auto& [key, by] : samples) thread_counts.insert(key.second);
  for (long t : thread_counts) {
    // The ladder.
    std::vector<std::string> ladder;
    for (const auto& [key, by] : samples)
      if (key.second == t && key.first.rfind("malloc_free/", 0) == 0) ladder.push_back(key.first);
    std::sort(ladder.begin(), ladder.end(), [&](const std::string& a, const std::string& b) { return size_of[a] < size_of[b]; });
    if (ladder.size() >= 2) {
      std::ostringstream text;
      text << label("size");
      for (const auto& a : make.view.cells.allocators) text << ' ' << label(a) << ' ' << label(a + " low") << ' ' << label(a + " high");
      text << '\n';
      for (const auto& b : ladder) {
        text << size_of[b];
        for (const auto& a : make.view.cells.allocators) {
          auto it = samples[{b, t}].find(a);
          std::vector<double> values;
          if (it != samples[{b, t}].end())
            for (const stats::Sample& x : it->second) values.push_back(x.value);
          const stats::LogEstimate e = stats::log_estimate(values);
          text << ' ' << num(e.center) << ' ' << num(e.low) << ' ' << num(e.high);
        }
        text << '\n';
      }
      Figure f = make.figure("micro-ladder-t" + std::to_string(t),
                        "malloc + free by size, " + threads_text(int(t)) + ": geometric mean ns per pair",
                        "Each line is an allocator: Google Benchmark's time for one malloc and its free, by the block's "
                        "size (both axes logarithmic), geometric mean over the repetitions of the timed runs, with its "
                        "95% interval.");
      set_number(f, "n", static_cast<double>(make.view.cells.allocators.size()));
      make.add(std::move(f), text.str());
    }
    // The other benchmarks against the reference allocator.
    Bars bars;
    bars.series = make.view.cells.allocators;
    bars.errorbars = true;
    bars.refline = 1;
    for (const auto& [key, by] : samples) {
      if (key.second != t || key.first.rfind("malloc_free/", 0) == 0 || !by.count(make.view.cells.reference)) continue;
      std::vector<Value> row;
      for (const auto& a : make.view.cells.allocators)
        row.push_back(a == make.view.cells.reference ? Value{1, 1, 1}  // 1 by definition: no interval
                      : by.count(a) ? ratio_bar(stats::log_ratio(by.at(a), by.at(make.view.cells.reference)))
                                    : Value{});
      bars.rows.push_back(key.first);
      bars.values.push_back(row);
    }
    if (bars.rows.empty()) continue;
    Figure f = make.figure("micro-others-t" + std::to_string(t),
                      "Micro-benchmarks relative to " + make.reference_text() + ", " + threads_text(int(t)) + ": geometric mean, 95% CI",
                      "Each bar is an allocator's geometric-mean time per operation of the benchmark over " + make.view.cells.reference +
                          "'s (timed runs' repetitions), with a 95% interval; below the dashed line at 1 is faster.");
    set_text(f, "chart", "bars");  // micro.gp draws these through bars.gp
    make.add_bars(std::move(f), bars, "time / " + make.view.cells.reference + "'s (lower is faster)", "no micro-benchmark with a reference run");
  }
}

}  // namespace allocstamp::figures
