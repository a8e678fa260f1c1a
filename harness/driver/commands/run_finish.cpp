// run_finish.cpp — the run verb's last step (run_finish.h): one view of the
// folder, summarized once, for summary.csv, the figures and the ranking.
#include "commands/run_finish.h"

#include <iostream>
#include <sstream>
#include <utility>
#include <vector>

#include "analysis/cell_summary.h"
#include "analysis/summary.h"
#include "commands/commands.h"
#include "meta_names.h"
#include "model/format.h"
#include "model/output_file.h"
#include "output/ranking.h"
#include "results/callsites.h"
#include "results/results_view.h"

namespace allocstamp {

namespace fs = std::filesystem;

namespace {

// The folder's figures and report (bench plot's), what was drawn or why not
// into logs/plot.log; the one line the terminal gets, and whether a figure
// failed. gnuplot missing or a folder it cannot read fails the figures, never
// the sweep's ranking after them.
std::pair<bool, std::string> draw_into_log(const ResultsView& view, const std::vector<CellSummary>& cells,
                                           const Paths& paths) {
  const fs::path& dir = view.dir;
  const fs::path log = dir / "logs" / "plot.log";
  std::ostringstream drawing;
  drawing << "bench plot " << dir.string() << "\n";
  std::string line;
  bool failed = false;
  try {
    const DrawnFolder done = draw_folder(view, cells, paths, drawing);
    failed = done.failed;
    line = "figures: " + (dir / "report.html").string() + " (" + std::to_string(done.figures) + " drawn, " +
           std::to_string(done.not_drawn) + " not drawn" + (done.failed ? ", some failed" : "") + ": logs/plot.log)";
  } catch (const std::runtime_error& e) {  // UsageError, RunError: said, not thrown past the ranking
    drawing << "error: " << e.what() << "\n";
    failed = true;
    line = "figures: not drawn: " + std::string(e.what());
  }
  replace_file(log, drawing.str());
  return {failed, wrap_words(line, kTerminalWidth - 9, 9)};
}

}  // namespace

int finish_sweep(const PreparedSweep& sweep, ResultsFolder& folder, nlohmann::json meta, const SweepOutcome& outcome,
                 const Paths& paths, std::ostream& out) {
  const Options& options = sweep.options;
  const fs::path& dir = folder.dir();
  folder.check_runs_unchanged();  // what follows is what bench wrote: the file must still say so
  if (options.precision > 0)
    meta[meta::precision] = precision_meta(options, outcome.precision, meta.value(meta::precision, nlohmann::json()));
  meta[meta::finished] = local_time_text("%Y-%m-%dT%H:%M:%S%z");
  meta[meta::interrupted] = outcome.stopped;
  const auto [busy, measured] = busy_runs_of(folder.runs());
  meta[meta::busy_runs] = busy;
  meta[meta::runs_with_machine_state] = measured;
  folder.write_meta(meta);
  // callsites.csv first: the view's reading checks every table, that one too.
  const std::size_t sampled_runs = write_callsites(dir);
  if (folder.runs().rows.empty()) write_empty_summary(dir);  // a sweep stopped before its first run
  if (folder.runs().rows.empty() && outcome.stopped) {
    // Nothing to summarize or draw: said as an interruption, not as a folder without runs.
    std::cerr << "interrupted: 0 run(s) recorded; finish with: bench --resume " << dir.string() << "\n";
    return 130;
  }
  // The one view of the sweep (no runs: refused here, as bench summarize refuses it).
  const ResultsView view = results_view_of(dir, folder.runs());
  const std::vector<CellSummary> family = summarize_cells(view);  // summary.csv's standings: family-corrected
  const std::vector<CellSummary> shown = options.per_comparison ? summarize_cells(view, true) : family;
  write_summary(view, family);
  if (sampled_runs) out << "call sites of " << sampled_runs << " profiled run(s): " << (dir / "callsites.csv").string() << "\n";
  // The figures and the report before the ranking, each figure's line into
  // logs/plot.log: the run ends with its bottom line, not with the figures.
  const auto [figures_failed, figures_line] =
      options.plot_after && !outcome.stopped ? draw_into_log(view, shown, paths) : std::pair{false, std::string()};
  print_ranking(view, shown, out, options.wide, outcome.printed);
  if (!figures_line.empty()) out << "\n" << figures_line << "\n";
  out << (figures_line.empty() ? "\n" : "") << "results: "
      << wrap_words(dir.string() + "  (runs.csv, summary.csv, meta.json, series.csv, scopes.csv, logs/)",
                    kTerminalWidth - 9, 9)
      << "\n";
  if (outcome.stopped) {
    std::cerr << "interrupted: " << outcome.finished << " run(s) recorded; finish with: bench --resume " << dir.string()
              << "\n";
    return 130;
  }
  return outcome.all_ok && !figures_failed ? 0 : 1;
}

}  // namespace allocstamp
