// fuzz_side_tables — any bytes as the series.csv of two parts of a sharded
// sweep (split at the first 0x1E byte; without one, the second part has
// none): each part's file is refused with a UsageError or read with every
// field within its unit, and merging them either is refused the same way or
// writes a series.csv that reads back with every row of both.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "model/errors.h"
#include "key_names.h"
#include "results/csv.h"
#include "results/merge_tables.h"
#include "results/side_tables.h"

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace allocstamp;
  static const fs::path root = fs::temp_directory_path() / ("fuzz-side-tables-" + std::to_string(getpid()));
  const std::vector<fs::path> parts = {root / "part1", root / "part2"};
  const fs::path out = root / "merged";
  fs::remove_all(root);
  for (const fs::path& p : parts) fs::create_directories(p);
  fs::create_directories(out);
  const char* text = reinterpret_cast<const char*>(data);
  const char* split = std::find(text, text + size, '\x1e');
  std::ofstream(parts[0] / "series.csv", std::ios::binary).write(text, split - text);
  if (split != text + size)
    std::ofstream(parts[1] / "series.csv", std::ios::binary).write(split + 1, text + size - split - 1);
  std::size_t rows = 0;
  bool readable = true;
  for (const fs::path& p : parts) {
    if (!fs::exists(p / "series.csv")) continue;
    try {
      std::vector<std::size_t> at;
      for (const CsvRow& row : read_side_table(p / "series.csv", "series", at)) {
        ++rows;
        for (std::size_t c : at)  // every column of series.csv is a number: each within its unit
          if (!row[c].empty() && !std::isfinite(field_number(row[c]))) __builtin_trap();
      }
    } catch (const UsageError&) {
      readable = false;
    }
  }
  try {
    merge_table(parts, out, "series.csv");
    if (!readable) __builtin_trap();  // a part its reader refuses was merged
    if (fs::exists(out / "series.csv")) {
      std::vector<std::size_t> at;
      if (read_side_table(out / "series.csv", "series", at).size() != rows) __builtin_trap();  // a row lost or made up
    }
  } catch (const UsageError&) {  // a damaged part, or two readable parts whose columns differ
  }
  return 0;
}
