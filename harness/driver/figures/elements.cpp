// elements.cpp — the figure kind "bytes-per-element": the map workloads: bytes and time per element (elements.gp: bars).
#include "figures/figure_kit.h"
#include "key_names.h"

namespace allocstamp::figures {

namespace {

std::string no_rss_note(const std::set<std::string>& groups) {
  return "no RSS before the fill (rss_baseline_kb) for " + joined({groups.begin(), groups.end()}) +
         ": what the fill added is unknown, its RSS bar left out";
}

}  // namespace

void element_figures(FigureMaker& make) {
  std::vector<std::string> containers, allocators, inserts;
  std::set<int> thread_counts;
  for (const auto& group : make.view.cells.groups) {
    int t = make.index.bottom_threads(group);
    bool has = false;
    for (const auto& a : make.index.allocators(group, t))
      for (const CsvRow* r : make.index.rows(group, t, a))
        if (make.index.table().number(*r, "elements_count") > 0) {
          has = true;
          thread_counts.insert(t);
          if (make.index.table().text(*r, keys::app) == "insert" &&
              std::find(inserts.begin(), inserts.end(), group) == inserts.end())
            inserts.push_back(group);
          if (std::find(allocators.begin(), allocators.end(), a) == allocators.end()) allocators.push_back(a);
        }
    if (has) containers.push_back(group);
  }
  if (containers.empty())
    return make.skip("bytes-per-element", "no ok run reported elements_count (the map workloads do): no bytes-per-element figures");
  std::sort(allocators.begin(), allocators.end(), [&](const std::string& x, const std::string& y) {
    return std::find(make.view.cells.allocators.begin(), make.view.cells.allocators.end(), x) <
           std::find(make.view.cells.allocators.begin(), make.view.cells.allocators.end(), y);
  });
  struct Measure {
    std::string key, title, file;
  };
  const std::vector<Measure> measures = {{kRequestedPerElement, "requested", "requested"},
                                         {keys::heap_usable_phase_end_bytes, "usable", "usable"},
                                         {kRssPerElement, "RSS added by the fill", "rss"}};
  // Every run's figure per element (cells.h: requested and the RSS the fill
  // added are the summary's own; usable bytes over the elements here).
  std::set<std::string> no_rss;  // groups whose runs report no RSS before the fill (maps churn)
  auto per_element = [&](const std::string& key, const std::string& group, const std::string& a) {
    const RunsTable& t = make.index.table();
    std::vector<double> v = make.index.values_by(group, make.index.bottom_threads(group), a, key == kRssPerElement ? keys::rss_kb : key,
                                             [&](const CsvRow& r) {
                                               if (key == kRequestedPerElement || key == kRssPerElement)
                                                 return make.view.cells.value(r, key);
                                               const double n = t.number(r, "elements_count");
                                               return n > 0 ? t.number(r, key) / n : kNaN;
                                             });
    if (key == kRssPerElement && v.empty() && !make.index.values_of(group, make.index.bottom_threads(group), a, keys::rss_kb).empty())
      no_rss.insert(group);
    return spread_bar(v);
  };
  const std::string how = "bytes at the end of the measured phase divided by the elements held: the median over the "
                          "profiled runs (memprof in front), whiskers at the lowest and highest run";
  std::string threads;
  for (int t : thread_counts) threads += (threads.empty() ? ", " : " or ") + threads_text(t);
  if (allocators.size() == 1) {
    Bars bars;
    bars.errorbars = true;
    for (const Measure& m : measures) bars.series.push_back(m.title);
    std::vector<std::string> notes;
    for (const auto& c : containers) {
      std::vector<Value> row;
      for (const Measure& m : measures) {
        Value v = per_element(m.key, c, allocators[0]);
        if (std::isnan(v.value) && !(m.key == kRssPerElement && no_rss.count(c)))
          notes.push_back("no " + m.key + " for " + c + ": bar left out");
        row.push_back(v);
      }
      bars.rows.push_back(c);
      bars.values.push_back(row);
    }
    Figure f = make.figure("bytes-per-element", "Bytes per element under " + allocators[0] + threads + make.context(containers),
                      "For each container: requested, usable and resident (RSS, less the RSS before the fill) " + how +
                          "." + make.runs_text(false, containers, 0));
    f.notes = notes;
    if (!no_rss.empty()) {
      f.notes.push_back(no_rss_note(no_rss));
      bars.explained.insert(measures.back().title);
    }
    make.add_bars(std::move(f), bars, "bytes per element", "no run reported the heap or RSS at the end of its phase");
  } else {
    for (const Measure& m : measures) {
      Bars bars;
      bars.series = allocators;
      bars.errorbars = true;
      std::map<std::string, std::vector<std::string>> missing;  // allocator -> containers
      for (const auto& c : containers) {
        std::vector<Value> row;
        for (const auto& a : allocators) {
          Value v = per_element(m.key, c, a);
          if (std::isnan(v.value) && !(m.key == kRssPerElement && no_rss.count(c))) missing[a].push_back(c);
          row.push_back(v);
        }
        bars.rows.push_back(c);
        bars.values.push_back(row);
      }
      Figure f = make.figure("bytes-per-element-" + m.file, "Bytes per element, " + m.title + threads + make.context(containers),
                        "For each container, one bar per allocator: " + m.title + " " + how + "." +
                            make.runs_text(false, containers, 0));
      if (m.key == kRssPerElement && !no_rss.empty()) f.notes.push_back(no_rss_note(no_rss));
      if (m.key == kRssPerElement) bars.explained.insert(no_rss.begin(), no_rss.end());
      std::vector<std::string> where;
      for (const auto& a : allocators)
        if (missing.count(a)) {
          const bool everywhere = missing[a].size() == containers.size();
          where.push_back(a + (everywhere ? "" : " (" + joined(missing[a]) + ")"));
          if (everywhere) bars.explained.insert(a);
        }
      if (!where.empty()) f.notes.push_back("no " + m.key + " under " + joined(where) + ": bars left out");
      make.add_bars(std::move(f), bars, m.title + " bytes per element",
               m.key == kRssPerElement
                   ? std::string("no run reported the RSS before the fill (rss_baseline_kb): what the fill added is unknown")
                   : "no run reported " + m.key + " (as a column or a key in extra)");
    }
  }
  if (inserts.empty()) return make.skip("insert-time", "no insert run of a map workload: no time-per-insert figure");
  Bars bars;
  bars.series = allocators;
  bars.errorbars = true;
  for (const auto& c : inserts) {
    std::vector<Value> row;
    for (const auto& a : allocators) row.push_back(per_element(keys::elapsed_ns, c, a));
    bars.rows.push_back(c);
    bars.values.push_back(row);
  }
  Figure f = make.figure("insert-time", "Time per inserted element" + threads + make.context(inserts) + ": median, ns",
                    "For each container, one bar per allocator: the measured phase's time divided by the elements "
                    "inserted, the median over the repetitions, whiskers at the fastest and slowest run." +
                        make.runs_text(true, inserts, 0));
  make.add_bars(std::move(f), bars, "ns per element", "no map run reported elapsed_ns");
}

}  // namespace allocstamp::figures
