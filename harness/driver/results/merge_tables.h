// merge_tables.h — one per-run table (runs.csv, series.csv, scopes.csv,
// micro.csv, callsites.csv) of the parts of a sharded sweep joined into one:
// each part's file read by its one reader (runs.h, side_tables.h), so a damaged
// part is refused (UsageError), and the rows written in run order. `bench
// merge` calls it once per table; fuzz_side_tables feeds it any bytes.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace allocstamp {

// Writes out/name from parts/*/name (a part without the file adds nothing;
// none with it: nothing written). UsageError when a part's file is damaged or
// its columns differ from the first's; RunError when the write fails.
void merge_table(const std::vector<std::filesystem::path>& parts, const std::filesystem::path& out,
                 const std::string& name);

}  // namespace allocstamp
