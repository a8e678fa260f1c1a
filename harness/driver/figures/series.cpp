// series.cpp — the figure kind "series": memory over time, from series.csv (series.gp).
#include "figures/figure_kit.h"
#include "key_names.h"

namespace allocstamp::figures {

void series_figures(FigureMaker& make) {
  const fs::path file = make.view.dir / "series.csv";
  std::set<std::string> with_points;
  CsvRow header = scan_series(file, [&](const CsvRow& row) { with_points.insert(row[0]); });
  if (with_points.empty() || header[0] != "run_id")
    return make.skip("series", "series.csv has no points (the sweep ran with --no-series): no memory-over-time figures");
  auto column = [&](const char* name) -> std::ptrdiff_t {
    auto it = std::find(header.begin(), header.end(), name);
    return it == header.end() ? -1 : it - header.begin();
  };
  std::ptrdiff_t t_col = column(keys::series::t_ns), heap_col = column(keys::series::heap_requested_max_bytes),
                 rss_col = column(keys::series::rss_kb);
  if (t_col < 0) return make.skip("series", "series.csv has no t_ns column: no memory-over-time figures");
  // One run per group and allocator: the lowest repetition at the most threads that has points.
  struct Line {
    std::string allocator;
    const CsvRow* run;
  };
  const RunsTable& table = make.index.table();
  std::map<std::string, std::vector<Line>> lines;
  std::map<std::string, std::vector<std::string>> without;
  std::set<std::string> wanted;
  for (const auto& group : make.view.cells.groups) {
    int t = make.index.top_threads(group);
    for (const auto& a : t ? make.index.allocators(group, t) : std::vector<std::string>{}) {
      std::vector<const CsvRow*> runs = make.index.rows(group, t, a);
      std::sort(runs.begin(), runs.end(), [&](const CsvRow* x, const CsvRow* y) {
        return table.number(*x, keys::rep) < table.number(*y, keys::rep);
      });
      auto chosen = std::find_if(runs.begin(), runs.end(),
                                 [&](const CsvRow* r) { return with_points.count(table.text(*r, keys::run_id)); });
      if (chosen == runs.end()) {
        without[group].push_back(a);
        continue;
      }
      lines[group].push_back({a, *chosen});
      wanted.insert(table.text(**chosen, keys::run_id));
    }
  }
  std::map<std::string, std::vector<CsvRow>> points;  // run_id -> its rows, for the chosen runs only
  scan_series(file, [&](const CsvRow& row) {
    if (wanted.count(row[0])) points[row[0]].push_back(row);
  });
  auto mib = [](const CsvRow& row, std::ptrdiff_t c, double scale) { return c < 0 ? kNaN : field_number(row[c]) / scale; };
  for (const auto& group : make.view.cells.groups) {
    int t = make.index.top_threads(group);
    std::string name = "series-" + group;
    if (t == 0) continue;  // ladder_figures already said so
    if (!lines.count(group)) {
      make.skip(file_stem(name), "no ok run of " + group + " has series points");
      continue;
    }
    std::ostringstream text;
    std::string names;
    std::set<std::string> reps;
    for (const Line& line : lines[group]) {
      const std::string& id = table.text(*line.run, keys::run_id);
      reps.insert(table.text(*line.run, keys::rep));
      if (!names.empty()) text << "\n\n";
      text << "# " << line.allocator << ", run " << id
           << ": seconds, live requested heap (maximum since the previous point) MiB, RSS MiB\n";
      for (const CsvRow& p : points[id])
        text << num(field_number(p[t_col]) / 1e9) << ' ' << num(mib(p, heap_col, kMiB)) << ' '
             << num(mib(p, rss_col, 1024.0)) << '\n';
      // One word per line for gnuplot's word(): quoted, since a name may hold
      // a space ("jemalloc #2", the same allocator with another library; an
      // allocator's own name holds no quote: letters, digits and ._+- only).
      names += (names.empty() ? "\"" : " \"") + line.allocator + "\"";
    }
    std::string which = reps.size() == 1 ? "rep " + *reps.begin() : "one run each";
    Figure f = make.figure(name, "Memory over time, " + group + ", " + threads_text(t) + make.context({group}) + ": " + which,
                      "Solid lines are each allocator's RSS and dashed lines the live requested heap (the maximum "
                      "since the previous point, as memprofile draws it), against seconds since the process started; "
                      "the gap between them is what the allocator and the process hold beyond the program's data.");
    f.group = group;
    make.note_left_out(f, group, t);
    set_text(f, "names", names);
    std::vector<std::string> drawn;
    for (const Line& line : lines[group]) drawn.push_back(line.allocator);
    make.set_slots(f, drawn);
    set_number(f, "n", static_cast<double>(lines[group].size()));
    if (without.count(group)) f.notes.push_back("no series points for " + joined(without[group]) + ": line left out");
    make.add(std::move(f), text.str());
  }
}

}  // namespace allocstamp::figures
