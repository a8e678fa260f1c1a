// regions.cpp — the figure kind "region": allocations and frees by region (regions.gp).
#include "figures/figure_kit.h"
#include "key_names.h"

namespace allocstamp::figures {

void region_figures(FigureMaker& make) {
  const std::vector<std::string> keys = {keys::allocs_seq_count, keys::allocs_par_count, keys::allocs_tx_count,
                                         keys::frees_seq_count,  keys::frees_par_count,  keys::frees_tx_count};
  for (const auto& group : make.view.cells.groups) {
    int t = make.index.top_threads(group);
    if (t == 0) continue;
    std::string name = "regions-" + group;
    std::vector<std::string> allocators = make.index.allocators(group, t);
    std::vector<std::vector<double>> values;
    double top = 0;
    bool any = false;
    for (const auto& a : allocators) {
      std::vector<double> row;
      for (const auto& k : keys) row.push_back(make.index.median_of(group, t, a, k));
      for (double v : row) any = any || std::isfinite(v);
      // The spread of the runs: the lowest and highest total of allocations, then of frees (whiskers).
      const RunsTable& table = make.index.table();
      for (std::size_t first : {std::size_t(0), std::size_t(3)}) {
        const Value total = spread_bar(make.index.values_by(group, t, a, keys[first], [&](const CsvRow& r) {
          return table.number(r, keys[first]) + table.number(r, keys[first + 1]) + table.number(r, keys[first + 2]);
        }));
        row.push_back(total.low);
        row.push_back(total.high);
        top = std::max(top, std::isfinite(total.high) ? total.high : 0.0);
      }
      top = std::max({top, std::isfinite(row[0] + row[1] + row[2]) ? row[0] + row[1] + row[2] : 0.0,
                      std::isfinite(row[3] + row[4] + row[5]) ? row[3] + row[4] + row[5] : 0.0});
      values.push_back(row);
    }
    if (!any) {
      make.skip(file_stem(name), "no run of " + group + " counted allocations (profiled with --profile=none?)");
      continue;
    }
    // The calls are the program's: where every allocator saw the same
    // counts (one thread, deterministic), one bar group says so instead of
    // the same bars once per allocator.
    const bool identical = allocators.size() > 1 && std::all_of(values.begin(), values.end(), [&](const auto& row) {
      for (size_t k = 0; k < row.size(); ++k)
        if (!(row[k] == values[0][k] || (std::isnan(row[k]) && std::isnan(values[0][k])))) return false;
      return true;
    });
    if (identical) {
      allocators = {allocators.size() == make.view.cells.allocators.size()
                        ? "every allocator (" + std::to_string(allocators.size()) + ")"
                        : "every allocator that ran (" + std::to_string(allocators.size()) + " of " +
                              std::to_string(make.view.cells.allocators.size()) + ")"};
      values.resize(1);
    }
    // Counts in a unit that keeps the axis short.
    double scale = top >= 1e6 ? 1e6 : top >= 1e3 ? 1e3 : 1;
    std::string unit = scale == 1e6 ? " (millions)" : scale == 1e3 ? " (thousands)" : "";
    std::ostringstream text;
    text << "#";
    for (const auto& k : keys) text << ' ' << k;
    text << " allocs_low allocs_high frees_low frees_high (" << (unit.empty() ? "calls" : unit.substr(2, unit.size() - 3))
         << "; the last four: the lowest and highest run's totals)\n";
    for (size_t i = 0; i < allocators.size(); ++i) {
      text << label(allocators[i]);
      for (double v : values[i]) text << ' ' << num(v / scale);
      text << '\n';
    }
    Figure f = make.figure(name, "Allocations and frees by region, " + group + ", " + threads_text(t) + make.context({group}) + ": median",
                      std::string(identical ? "Left the allocation calls and right the frees, the same under every "
                                              "allocator that ran (the program's own calls), "
                                            : "Left the allocation calls and right the frees of each allocator's runs, ") +
                          "split into the sequential (seq), parallel (par) and transactional (tx) regions; medians "
                          "over the repetitions, the whisker on each stack from the lowest to the highest run's total." +
                          make.runs_text(false, {group}, t));
    f.group = group;
    make.note_left_out(f, group, t);
    set_text(f, "ylab", "calls" + unit);
    set_number(f, "ymax", top / scale * 1.08);  // both panels on one scale
    double width = std::clamp<double>(600.0 + 150.0 * static_cast<double>(allocators.size()), 800, 1600);
    set_size(f, width, width / 2 - 100, allocators.size(), longest(allocators), allocators.empty() ? 0 : allocators[0].size());
    set_number(f, "rows", static_cast<double>(allocators.size()));
    make.add(std::move(f), text.str());
  }
}

// Map workloads report elements_count: bytes and time per element, per container,
// from the fewest threads each ran with (one container, not shards; no parallel time).
// The micro-benchmarks (micro.csv, timed runs only): ns per op by size for
// malloc_free, one line per allocator; the other benchmarks relative to the
// reference allocator. Per thread count.

}  // namespace allocstamp::figures
