// main.cpp — bench: arguments → a verb and its options → that verb's module
// (commands/). Typed errors are caught here once: "error: what — how to fix",
// exit 2 for bad usage, 1 for a failed run. Every line printed fits the
// terminal's 120 columns (output/terminal_lines.h) unless --wide, or the
// output is for a program: CSV on stdout, --columns' Markdown.
#include <csignal>
#include <filesystem>
#include <new>
#include <iostream>

#include "commands/commands.h"
#include "model/errors.h"
#include "model/options.h"
#include "output/terminal_lines.h"

int main(int argc, char** argv) {
  using namespace allocstamp;
  // Past a file-size limit a write fails (EFBIG) and bench says so, instead of dying by SIGXFSZ.
  signal(SIGXFSZ, SIG_IGN);
  TerminalWidth terminal;  // the help and a refused command line are wrapped too
  try {
    Command command = parse_command_line(argc, argv);
    const bool for_a_program = command.verb == Command::Verb::columns ||
                               (command.verb == Command::Verb::check && command.check.csv == "-");
    terminal.narrow(!command.run.wide && !for_a_program, !command.run.wide);
    switch (command.verb) {
      case Command::Verb::answered: return 0;
      case Command::Verb::check: return command_check(command.check, std::cout, std::cerr);
      case Command::Verb::plot: return command_plot(command.dir, default_paths(), std::cout, command.run.per_comparison);
      case Command::Verb::summarize: return command_summarize(command.dir, command.run.wide, command.run.per_comparison, std::cout);
      case Command::Verb::columns: return command_columns(std::cout);
      case Command::Verb::list: return command_list(command.run, default_paths(), std::cout);
      case Command::Verb::run: return command_run(command.run, default_paths(), std::cout);
      case Command::Verb::slurm: return command_slurm(command, default_paths(), std::cout);
      case Command::Verb::merge: return command_merge(command.merge, std::cout);
      case Command::Verb::trace: return command_trace(command, default_paths(), std::cout);
      case Command::Verb::overhead: return command_overhead(command.overhead, command.run, default_paths(), std::cout);
    }
    return 2;
  } catch (const UsageError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const RunError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  } catch (const std::filesystem::filesystem_error& e) {
    // A path the user gave or a folder holds: a symbolic link loop, a missing
    // folder, a permission. Not a bug in bench: the path is named.
    std::cerr << "error: " << printable_text(e.what()) << " — check the path (bench refuses links that loop, and folders it cannot write)\n";
    return 2;
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory — free memory, or run fewer runs at once\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << printable_text(e.what()) << " — this is a bug in bench; please report it\n";
    return 1;
  }
}
