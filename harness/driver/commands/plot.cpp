// commands/plot.cpp — `bench plot [DIR]`: figures (gnuplot) and report.md /
// report.html of a results folder, results/latest unless one is named.
#include <CLI/CLI.hpp>

#include "commands.h"
#include "figures/plot.h"

namespace allocstamp {

int command_plot(const std::string& dir, const Paths& paths, std::ostream& out) {
  return run_plot(dir.empty() ? paths.source / "results" / "latest" : std::filesystem::path(dir), paths, out);
}

// The verb's flags (cli.cpp asks each verb for its own).
CLI::App* add_plot_command(CLI::App& app, Command& command) {
  CLI::App* plot = app.add_subcommand(
      "plot", "Draw the figures of a results folder (PNG and SVG in DIR/figures/) and write DIR/report.md and report.html");
  plot->add_option("dir", command.dir, "Results folder (default results/latest)");
  plot->footer(
      "Figures, each left out with the reason when its data is missing: time relative to glibc (95% CI) per thread\n"
      "count; speedup, memory ladder, memory over time (series.csv) and allocations/frees by region per workload;\n"
      "abort rate (transactional runs); bytes and time per element (map workloads). Needs gnuplot\n"
      "(apt-get install gnuplot-nox). Exit status: 0 drawn, 1 gnuplot missing or failing, 2 not a results folder.");
  return plot;
}

}  // namespace allocstamp
