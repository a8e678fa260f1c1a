// elements.cpp — the figure kind "bytes-per-element": the map workloads: bytes and time per element (elements.gp: bars).
#include "figures/figure_kit.h"
#include "key_names.h"

namespace allocstamp::figures {

namespace {

std::string no_rss_note(const std::set<std::string>& groups) {
  return "no RSS before the fill (rss_baseline_kb) for " + joined({groups.begin(), groups.end()}) +
         ": what the fill added is unknown, its RSS bar left out";
}

// The map workloads' groups and allocators, and each run's figure per element.
struct ElementRuns {
  FigureMaker& make;
  std::vector<std::string> containers, allocators, inserts;
  std::string threads;         // ", N threads" (or "... or M threads")
  std::set<std::string> no_rss;  // groups whose runs report no RSS before the fill (maps churn)

  explicit ElementRuns(FigureMaker& m) : make(m) {
    std::set<int> thread_counts;
    for (const auto& group : make.view.cells.groups) {
      int t = make.index.bottom_threads(group);
      bool has = false;
      for (const auto& a : make.index.allocators(group, t))
        for (const CsvRow* r : make.index.rows(group, t, a))
          if (make.index.table().number(*r, keys::elements_count) > 0) {
            has = true;
            thread_counts.insert(t);
            if (make.index.table().text(*r, keys::app) == "insert" &&
                std::find(inserts.begin(), inserts.end(), group) == inserts.end())
              inserts.push_back(group);
            if (std::find(allocators.begin(), allocators.end(), a) == allocators.end()) allocators.push_back(a);
          }
      if (has) containers.push_back(group);
    }
    std::sort(allocators.begin(), allocators.end(), [&](const std::string& x, const std::string& y) {
      return std::find(make.view.cells.allocators.begin(), make.view.cells.allocators.end(), x) <
             std::find(make.view.cells.allocators.begin(), make.view.cells.allocators.end(), y);
    });
    for (int t : thread_counts) threads += (threads.empty() ? ", " : " or ") + threads_text(t);
  }

  // Every run's figure per element (cells.h: requested and the RSS the fill
  // added are the summary's own; usable bytes over the elements here).
  Value per_element(const std::string& key, const std::string& group, const std::string& a) {
    const RunsTable& t = make.index.table();
    std::vector<double> v = make.index.values_by(group, make.index.bottom_threads(group), a, key == kRssPerElement ? keys::rss_kb : key,
                                             [&](const CsvRow& r) {
                                               if (key == kRequestedPerElement || key == kRssPerElement)
                                                 return make.view.cells.value(r, key);
                                               const double n = t.number(r, keys::elements_count);
                                               return n > 0 ? t.number(r, key) / n : kNaN;
                                             });
    if (key == kRssPerElement && v.empty() && !make.index.values_of(group, make.index.bottom_threads(group), a, keys::rss_kb).empty())
      no_rss.insert(group);
    return spread_bar(v);
  }
};

struct Measure {
  std::string key, title, file;
};
const std::vector<Measure>& measures() {
  static const std::vector<Measure> all = {{kRequestedPerElement, "requested", "requested"},
                                           {keys::heap_usable_phase_end_bytes, "usable", "usable"},
                                           {kRssPerElement, "RSS added by the fill", "rss"}};
  return all;
}

const char* const kHow = "bytes at the end of the measured phase divided by the elements held: the median over the "
                         "profiled runs (memprof in front), whiskers at the lowest and highest run";

// One allocator: one figure, a bar per measure for each container.
void one_allocators_bytes(ElementRuns& runs) {
  FigureMaker& make = runs.make;
  const std::string& allocator = runs.allocators[0];
  Bars bars;
  bars.errorbars = true;
  for (const Measure& m : measures()) bars.series.push_back(m.title);
  std::vector<std::string> notes;
  for (const auto& c : runs.containers) {
    std::vector<Value> row;
    for (const Measure& m : measures()) {
      Value v = runs.per_element(m.key, c, allocator);
      if (std::isnan(v.value) && !(m.key == kRssPerElement && runs.no_rss.count(c)))
        notes.push_back("no " + m.key + " for " + c + ": bar left out");
      row.push_back(v);
    }
    bars.rows.push_back(c);
    bars.values.push_back(row);
  }
  Figure f = make.figure("bytes-per-element", "Bytes per element under " + allocator + runs.threads + make.context(runs.containers),
                    "For each container: requested, usable and resident (RSS, less the RSS before the fill) " +
                        std::string(kHow) + "." + make.runs_text(false, runs.containers, FigureMaker::kFewestThreads));
  f.notes = notes;
  if (!runs.no_rss.empty()) {
    f.notes.push_back(no_rss_note(runs.no_rss));
    bars.explained.insert(measures().back().title);
  }
  make.add_bars(std::move(f), bars, "bytes per element", "no run reported the heap or RSS at the end of its phase");
}

// Several allocators: a figure per measure, a bar per allocator for each container.
void measure_by_allocator(ElementRuns& runs, const Measure& m) {
  FigureMaker& make = runs.make;
  Bars bars;
  bars.series = runs.allocators;
  bars.errorbars = true;
  std::map<std::string, std::vector<std::string>> missing;  // allocator -> containers
  for (const auto& c : runs.containers) {
    std::vector<Value> row;
    for (const auto& a : runs.allocators) {
      Value v = runs.per_element(m.key, c, a);
      if (std::isnan(v.value) && !(m.key == kRssPerElement && runs.no_rss.count(c))) missing[a].push_back(c);
      row.push_back(v);
    }
    bars.rows.push_back(c);
    bars.values.push_back(row);
  }
  Figure f = make.figure("bytes-per-element-" + m.file, "Bytes per element, " + m.title + runs.threads + make.context(runs.containers),
                    "For each container, one bar per allocator: " + m.title + " " + kHow + "." +
                        make.runs_text(false, runs.containers, FigureMaker::kFewestThreads));
  if (m.key == kRssPerElement && !runs.no_rss.empty()) f.notes.push_back(no_rss_note(runs.no_rss));
  if (m.key == kRssPerElement) bars.explained.insert(runs.no_rss.begin(), runs.no_rss.end());
  std::vector<std::string> where;
  for (const auto& a : runs.allocators)
    if (missing.count(a)) {
      const bool everywhere = missing[a].size() == runs.containers.size();
      where.push_back(a + (everywhere ? "" : " (" + joined(missing[a]) + ")"));
      if (everywhere) bars.explained.insert(a);
    }
  if (!where.empty()) f.notes.push_back("no " + m.key + " under " + joined(where) + ": bars left out");
  make.add_bars(std::move(f), bars, m.title + " bytes per element",
           m.key == kRssPerElement
               ? std::string("no run reported the RSS before the fill (rss_baseline_kb): what the fill added is unknown")
               : "no run reported " + m.key + " (as a column or a key in extra)");
}

// The insert runs: time per inserted element, a bar per allocator.
void insert_time(ElementRuns& runs) {
  FigureMaker& make = runs.make;
  Bars bars;
  bars.series = runs.allocators;
  bars.errorbars = true;
  // A phase too short to time has no time to rank by (the tables and the
  // time heatmap say so): no bar, a note.
  std::vector<std::string> short_of;
  for (const auto& c : runs.inserts) {
    std::vector<Value> row;
    for (const auto& a : runs.allocators) {
      const CellSummary* cell = make.cell(c, make.index.bottom_threads(c), a);
      const bool too_short = cell && cell->time.n > 0 && cell->time.center < kShortestTimedPhaseNs;
      if (too_short) short_of.push_back(a + " (" + c + ")");
      row.push_back(too_short ? Value{} : runs.per_element(keys::elapsed_ns, c, a));
    }
    bars.rows.push_back(c);
    bars.values.push_back(row);
  }
  if (short_of.size() == runs.inserts.size() * runs.allocators.size())
    return make.skip("insert-time", "every measured phase of the map runs is under " +
                                        number_text("%g", kShortestTimedPhaseNs / 1e6) +
                                        " ms, too short to time: no time-per-insert figure (use a larger --size)");
  Figure f = make.figure("insert-time", "Time per inserted element" + runs.threads + make.context(runs.inserts) + ": median, ns",
                    "For each container, one bar per allocator: the measured phase's time divided by the elements "
                    "inserted, the median over the repetitions, whiskers at the fastest and slowest run." +
                        make.runs_text(true, runs.inserts, FigureMaker::kFewestThreads));
  if (!short_of.empty()) {
    f.notes.push_back("too short to time (a measured phase under " + number_text("%g", kShortestTimedPhaseNs / 1e6) +
                      " ms: use a larger --size): " + joined(short_of) + ": bar left out");
    for (const auto& a : runs.allocators)
      if (std::count_if(short_of.begin(), short_of.end(), [&](const std::string& s) { return s.rfind(a + " (", 0) == 0; }) ==
          std::ptrdiff_t(runs.inserts.size()))
        bars.explained.insert(a);
    for (const auto& c : runs.inserts)
      if (std::all_of(runs.allocators.begin(), runs.allocators.end(), [&](const std::string& a) {
            return std::find(short_of.begin(), short_of.end(), a + " (" + c + ")") != short_of.end();
          }))
        bars.explained.insert(c);
  }
  make.add_bars(std::move(f), bars, "ns per element", "no map run reported elapsed_ns");
}

}  // namespace

void element_figures(FigureMaker& make) {
  ElementRuns runs(make);
  if (runs.containers.empty())
    return make.skip("bytes-per-element", "no ok run reported elements_count (the map workloads do): no bytes-per-element figures");
  if (runs.allocators.size() == 1)
    one_allocators_bytes(runs);
  else
    for (const Measure& m : measures()) measure_by_allocator(runs, m);
  if (runs.inserts.empty()) return make.skip("insert-time", "no insert run of a map workload: no time-per-insert figure");
  insert_time(runs);
}

}  // namespace allocstamp::figures
