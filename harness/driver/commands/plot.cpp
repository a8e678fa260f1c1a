// commands/plot.cpp — `bench plot [DIR]`: a results folder read (results/),
// its cells summarized (analysis/), the figures drawn with gnuplot (figures/),
// then report.md and report.html (output/); results/latest unless a folder is named.
#include <CLI/CLI.hpp>

#include "analysis/cell_summary.h"
#include "commands/commands.h"
#include "figures/plot.h"
#include "model/format.h"
#include "output/report.h"
#include "results/results_view.h"

namespace allocstamp {

DrawnFolder draw_folder(const std::filesystem::path& dir, const Paths& paths, std::ostream& log, bool per_comparison) {
  const ResultsView view = load_results(dir);
  return draw_folder(view, summarize_cells(view, per_comparison), paths, log);
}

DrawnFolder draw_folder(const ResultsView& view, const std::vector<CellSummary>& cells, const Paths& paths,
                        std::ostream& log) {
  const DrawnFigures drawn = draw_figures(view, cells, paths, log);
  write_report(view, cells, drawn.plan);
  return {drawn.plan.figures.size(), drawn.plan.skipped.size(), drawn.failed > 0};
}

int plot_folder(const std::filesystem::path& dir, const Paths& paths, std::ostream& out, bool per_comparison) {
  const DrawnFolder done = draw_folder(dir, paths, out, per_comparison);
  out << "\nreport: "
      << wrap_words((dir / "report.md").string() + " and " + (dir / "report.html").string() + " (" +
                        std::to_string(done.figures) + " figure(s), " + std::to_string(done.not_drawn) + " not drawn)",
                    kTerminalWidth - 8, 8)
      << "\n";
  return done.failed ? 1 : 0;
}

int command_plot(const std::string& dir, const Paths& paths, std::ostream& out, bool per_comparison) {
  return plot_folder(dir.empty() ? paths.source / "results" / "latest" : std::filesystem::path(dir), paths, out,
                     per_comparison);
}

// The verb's own flags (commands/command_line.cpp adds them to the shared ones cli/ defines).
CLI::App* add_plot_command(CLI::App& app, Command& command) {
  CLI::App* plot = app.add_subcommand(
      "plot", "Draw the figures of a results folder (PNG and SVG in DIR/figures/) and write DIR/report.md and report.html");
  plot->add_option("dir", command.dir, "Results folder (default results/latest)");
  plot->add_flag("--per-comparison", command.run.per_comparison, "Show each standing from its comparison's own 95% interval, uncorrected for the number of comparisons (labelled so); by default a folder's time ratios, and its memory ratios, are each corrected as one family (Benjamini-Hochberg, intervals at the false-coverage level)");
  plot->footer(
      "Figures, each left out with the reason when its data is missing: time relative to glibc (95% CI) per thread\n"
      "count; speedup, memory ladder, memory over time (series.csv) and allocations/frees by region per workload;\n"
      "abort rate (transactional runs); bytes and time per element (map workloads). Needs gnuplot\n"
      "(apt-get install gnuplot-nox); a figure it has not drawn in 60 s is stopped (ALLOCSTAMP_FIGURE_SECONDS=S sets\n"
      "another limit). Exit status: 0 drawn, 1 gnuplot missing or failing, 2 not a results folder.");
  return plot;
}

}  // namespace allocstamp
