// fuzz_runs_csv — any bytes as a results folder's runs.csv (and meta.json):
// load_runs either refuses them with a UsageError (exit 2 in bench) or returns
// a table whose every field the commands read without crashing, and whose
// cells (cells.h) every command's estimates can be made of.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "results/cells.h"
#include "model/errors.h"
#include "results/runs.h"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fs::path dir = fs::temp_directory_path() / ("fuzz-runs-" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "runs.csv", std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data), std::streamsize(size));
  using namespace allocstamp;
  {
    try {
      RunsTable t = load_runs(dir, "fuzz");
      for (const CsvRow& row : t.rows) {
        t.status(row);
        t.kind(row);
        for (const std::string& column : t.header) t.number(row, column);
      }
      const Cells cells = cells_of(t);
      for (const Cell& cell : cells.cells) {
        cells.estimate(cell, "time");
        cells.estimate(cell, "maxrss_kb");
        cells.values(cell, kRssPerElement);
        cells.busy_runs(cell);
        if (const Cell* ref = cells.find(cell.group, cell.id.threads, cells.reference)) cells.ratio(cell, *ref, "time");
      }
    } catch (const UsageError&) {
    } catch (const RunError&) {
    }
  }
  return 0;
}
