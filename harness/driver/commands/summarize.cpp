// commands/summarize.cpp — `bench summarize DIR`: summary.csv recomputed from
// runs.csv, and the ranking printed as at the end of a sweep.
#include "commands.h"
#include "ranking.h"
#include "summary.h"

namespace allocstamp {

int command_summarize(const std::filesystem::path& dir, std::ostream& out) {
  auto summary = write_summary(dir);
  print_ranking(dir, out);
  out << "\nwrote " << summary.string() << "\n";
  return 0;
}

}  // namespace allocstamp
