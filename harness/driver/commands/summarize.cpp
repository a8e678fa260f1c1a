// commands/summarize.cpp — `bench summarize DIR`: summary.csv recomputed from
// runs.csv, and the ranking printed as at the end of a sweep.
#include <CLI/CLI.hpp>

#include "commands/commands.h"
#include "output/ranking.h"
#include "analysis/summary.h"

namespace allocstamp {

int command_summarize(const std::filesystem::path& dir, bool wide, bool per_comparison, std::ostream& out) {
  auto summary = write_summary(dir);
  print_ranking(dir, out, wide, {}, per_comparison);
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
  return summarize;
}

}  // namespace allocstamp
