// ranking.cpp — the table printed at the end of a sweep and by `bench
// summarize`: per workload the summary table the report shows too
// (summary_table.h: the same cells, statistics and names), then warnings where
// repetitions are few or runs are outliers.
#include "ranking.h"

#include <map>
#include <set>
#include <sstream>

#include "document.h"
#include "figures.h"
#include "statistics.h"
#include "summary_table.h"

namespace allocstamp {

void print_ranking(const std::filesystem::path& dir, std::ostream& out) {
  const ResultsView view = load_results(dir);
  const std::vector<CellSummary> cells = summarize_cells(view);
  // Outliers among the timed runs, judged from five runs up (with fewer the MAD says little).
  std::map<std::pair<std::string, std::string>, std::size_t> outliers;  // (group, "allocator t") -> count
  {
    std::map<std::tuple<std::string, int, std::string>, std::vector<double>> times;
    for (const RunRow& r : view.runs)
      if (r.kind == RunKind::timed && r.values.at("status") == "ok")
        times[{r.group, r.threads, r.values.at("allocator")}].push_back(run_time(r));
    for (const auto& [key, values] : times)
      if (values.size() >= 5)
        if (std::size_t n = stats::mad_outliers(values).size())
          outliers[{std::get<0>(key), std::get<2>(key) + " at " + std::to_string(std::get<1>(key)) + " thread(s)"}] = n;
  }
  bool under_memprof = false;
  for (const std::string& group : view.groups) {
    std::set<std::string> context;  // "size small", "ml_wt"
    for (const RunRow& r : view.runs)
      if (r.group == group) {
        context.insert("size " + r.values.at("size"));
        if (r.values.count("tm") && !r.values.at("tm").empty()) context.insert(r.values.at("tm"));
      }
    std::string title = group;
    for (const std::string& c : context) title += (title == group ? " (" : ", ") + c;
    Document doc{heading(2, title + (title == group ? "" : ")"))};
    Block t = summary_table(view, cells, group);
    t.indent = 2;
    doc.push_back(t);
    std::vector<std::string> warnings;
    bool few = false;
    for (const CellSummary& c : cells)
      if (c.group == group) {
        few = few || (c.time.n > 0 && c.time.n < 3);
        under_memprof = under_memprof || c.time_under_memprof;
      }
    for (const auto& [key, n] : outliers)
      if (key.first == group)
        warnings.push_back("warning: " + std::to_string(n) + " outlier run(s) for " + key.second +
                           " (modified Z-score > 3.5): noisy");
    if (few)
      warnings.push_back("warning: fewer than 3 ok timed runs in some cells: intervals are missing or very wide "
                         "(use --reps 3 or more)");
    if (!warnings.empty()) doc.push_back(list(warnings, 4));
    out << "\n" << render_text(doc);
  }
  // The legend, wrapped for a terminal.
  std::string line;
  std::istringstream words(summary_table_legend(view));
  out << "\n";
  for (std::string word; words >> word;) {
    if (!line.empty() && line.size() + 1 + word.size() > 100) out << line << "\n", line.clear();
    line += (line.empty() ? "" : " ") + word;
  }
  out << line << "\n";
  if (under_memprof)
    out << "A cell marked \"profiled: no timed run\" (a folder older than timed runs, or --reps 0) has its times from "
           "the profiled runs, measured under memprof.\n";
  std::map<std::string, int> not_ok;
  for (const RunRow& r : view.runs)
    if (r.values.at("status") != "ok") ++not_ok[r.values.at("status")];
  for (const auto& [status, count] : not_ok) out << "\n" << count << " run(s) " << status << " (see runs.csv and logs/)";
  if (!not_ok.empty()) out << "\n";
}

}  // namespace allocstamp
