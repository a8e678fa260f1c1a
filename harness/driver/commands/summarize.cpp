// commands/summarize.cpp — `bench summarize DIR`: summary.csv recomputed from
// runs.csv, and the ranking printed as at the end of a sweep.
#include <CLI/CLI.hpp>

#include "commands/commands.h"
#include "output/ranking.h"
#include "analysis/summary.h"

namespace allocstamp {

int command_summarize(const std::filesystem::path& dir, bool wide, std::ostream& out) {
  auto summary = write_summary(dir);
  print_ranking(dir, out, wide);
  out << "\nwrote " << summary.string() << "\n";
  return 0;
}

// The verb's flags (cli.cpp asks each verb for its own).
CLI::App* add_summarize_command(CLI::App& app, Command& command) {
  CLI::App* summarize = app.add_subcommand("summarize", "Recompute summary.csv of a results folder");
  summarize->add_option("dir", command.dir, "Results folder")->required()->check(CLI::ExistingDirectory);
  summarize->add_flag("--wide", command.run.wide, "Every column of the tables (wider than 120 characters), and each "
                      "warning cell by cell");
  return summarize;
}

}  // namespace allocstamp
