// commands/plot.cpp — `bench plot [DIR]`: figures (gnuplot) and report.md /
// report.html of a results folder, results/latest unless one is named.
#include "commands.h"
#include "plot.h"

namespace allocstamp {

int command_plot(const std::string& dir, const Paths& paths, std::ostream& out) {
  return run_plot(dir.empty() ? paths.source / "results" / "latest" : std::filesystem::path(dir), paths, out);
}

}  // namespace allocstamp
