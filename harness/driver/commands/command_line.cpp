// commands/command_line.cpp — bench's whole command line: the shared pieces
// of cli/ and each verb's own flags (commands/*.cpp), parsed once into the
// verb and its options.
#include <CLI/CLI.hpp>

#include <cmath>

#include "cli/cli.h"
#include "commands/commands.h"
#include "model/errors.h"

namespace allocstamp {

Command parse_command_line(int argc, char** argv) {
  std::vector<std::string> words = normalized_words(argc, argv);
  std::vector<char*> expanded;
  for (std::string& w : words) expanded.push_back(w.data());
  expanded.push_back(nullptr);
  Command command;
  SweepFlags flags;
  CLI::App app{"bench — how the choice of memory allocator changes the speed and the memory of programs", "bench"};
  configure_bench_app(app);
  add_sweep_flags(app, command.run, flags);
  // Each verb's own flags, in its module (commands/).
  CLI::App* summarize = add_summarize_command(app, command);
  CLI::App* plot = add_plot_command(app, command);
  CLI::App* check = add_check_command(app, command.check);
  CLI::App* merge = add_merge_command(app, command.merge);
  CLI::App* slurm = add_slurm_command(app, command.slurm);
  CLI::App* trace = add_trace_command(app, command.trace);
  CLI::App* overhead = add_overhead_command(app, command.overhead);
  if (!parse_words(app, argc, expanded.data())) {
    command.verb = Command::Verb::answered;
    return command;
  }
  command.verb = overhead->parsed()    ? Command::Verb::overhead
                 : slurm->parsed()     ? Command::Verb::slurm
                 : merge->parsed()     ? Command::Verb::merge
                 : trace->parsed()     ? Command::Verb::trace
                 : check->parsed()     ? Command::Verb::check
                 : plot->parsed()      ? Command::Verb::plot
                 : summarize->parsed() ? Command::Verb::summarize
                 : flags.columns       ? Command::Verb::columns
                 : flags.list          ? Command::Verb::list
                                       : Command::Verb::run;
  finish_sweep_options(command.run, flags, argc, expanded.data(), argv);
  if (!std::isfinite(command.check.alpha))
    throw UsageError("--alpha is not a number", "give a level between 0 and 1, e.g. 0.05");
  return command;
}

}  // namespace allocstamp
