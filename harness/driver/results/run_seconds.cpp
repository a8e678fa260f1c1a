// run_seconds.cpp — the expected seconds of a run (run_seconds.h).
#include "results/run_seconds.h"

#include <cmath>

#include "model/errors.h"
#include "results/csv.h"

namespace allocstamp {

namespace fs = std::filesystem;

namespace {

// The columns of run-seconds.csv, in order; a precision row has kind
// "rounds" and neither threads nor allocator.
const char* const kColumns[] = {"workload", "size", "kind", "threads", "allocator", "seconds"};

std::string shape(const std::string& workload, const std::string& size, const std::string& kind,
                  const std::string& threads, const std::string& allocator) {
  return workload + '\0' + size + '\0' + kind + '\0' + threads + '\0' + allocator;
}

}  // namespace

RunSeconds RunSeconds::load(const fs::path& file) {
  RunSeconds table;
  std::error_code missing;
  if (!fs::exists(fs::symlink_status(file, missing))) return table;
  CsvRow header;
  const std::vector<CsvRow> rows = read_csv(file, &header);
  if (header != CsvRow(std::begin(kColumns), std::end(kColumns)))
    throw UsageError(file.string() + " does not have the columns workload,size,kind,threads,allocator,seconds",
                     "write it again with scripts/run-seconds from a finished sweep");
  for (const CsvRow& row : rows) {
    const double seconds = field_number(row[5]);
    if (!(seconds >= 0))
      throw UsageError(file.string() + ": the seconds of " + row[0] + " " + row[2] + " are not a number of 0 or more",
                       "write it again with scripts/run-seconds from a finished sweep");
    if (row[2] == "rounds") table.rounds_[row[0]] = seconds;
    else table.runs_[shape(row[0], row[1], row[2], row[3], row[4])] = seconds;
  }
  return table;
}

double RunSeconds::expected(const Run& run) const {
  const auto at = runs_.find(shape(run.workload.name, run.size, kind_name(run.kind), std::to_string(run.threads),
                                   run.allocator.name));
  return at == runs_.end() ? 0 : at->second;
}

double RunSeconds::rounds(const std::string& workload) const {
  const auto at = rounds_.find(workload);
  return at == rounds_.end() ? 0 : at->second;
}

}  // namespace allocstamp
