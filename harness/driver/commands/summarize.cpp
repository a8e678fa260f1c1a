// commands/summarize.cpp — `bench summarize DIR`: summary.csv recomputed from
// runs.csv, and the ranking printed as at the end of a sweep.
#include <CLI/CLI.hpp>

#include "analysis/cell_summary.h"
#include "analysis/summary.h"
#include "commands/commands.h"
#include "output/ranking.h"
#include "results/results_view.h"
#include "results/runs.h"

namespace allocstamp {

int command_summarize(const std::filesystem::path& dir, bool wide, bool per_comparison, std::ostream& out) {
  // runs.csv read once: summary.csv (its standings family-corrected) and the ranking from it.
  const RunsTable table = load_runs(dir, "results");
  if (table.rows.empty()) write_empty_summary(dir);
  const ResultsView view = results_view_of(dir, table);  // no runs: refused, after the empty summary.csv
  const std::vector<CellSummary> family = summarize_cells(view);
  const std::filesystem::path summary = write_summary(view, family);
  print_ranking(view, per_comparison ? summarize_cells(view, true) : family, out, wide, {});
  out << "\nwrote " << summary.string() << "\n";
  return 0;
}

// The verb's own flags (commands/command_line.cpp adds them to the shared ones cli/ defines).
CLI::App* add_summarize_command(CLI::App& app, Command& command) {
  CLI::App* summarize = app.add_subcommand("summarize", "Recompute summary.csv of a results folder");
  summarize->add_option("dir", command.dir, "Results folder")->required()->check(CLI::ExistingDirectory);
  summarize->add_flag("--wide", command.run.wide, "Every column of the tables (wider than 120 characters), and each "
                      "warning cell by cell");
  summarize->add_flag("--per-comparison", command.run.per_comparison, "Show each standing from its comparison's own 95% interval, uncorrected for the number of comparisons (labelled so); by default a folder's time ratios, and its memory ratios, are each corrected as one family (Benjamini-Hochberg, intervals at the false-coverage level)");
  // Its own footer: without one it would show the sweep's examples.
  summarize->footer(
      "Reads DIR/runs.csv and meta.json, writes DIR/summary.csv (docs/results.md lists its columns) and prints the\n"
      "ranking a sweep prints at its end: each allocator's time and memory against the reference, with 95%\n"
      "intervals. Run it after editing or merging a folder's runs by hand; bench plot draws the figures.\n"
      "Example: bench summarize results/latest\n"
      "Exit status: 0 written, 1 summary.csv could not be written, 2 not a results folder (or a damaged one).");
  return summarize;
}

}  // namespace allocstamp
