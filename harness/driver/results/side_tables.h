// side_tables.h — the one reader of the side tables (series.csv, scopes.csv,
// micro.csv, callsites.csv: rows keyed by runs.csv's run_id): read_csv's
// checks, then the table's columns of keys.def (SIDE_COLUMN) present and each
// field within its unit (fields.h), so a garbage row is refused (exit 2, the
// file, row and column named) by every command that reads it.
#pragma once
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string_view>
#include <vector>

#include "results/csv.h"

namespace allocstamp {

// Calls `each` with every row of `file`, a side table named `table` ("series",
// "scopes", "micro", "callsites"), checked; `at` gets the index of each of the
// table's columns in keys.def's order. Returns the header (empty: an empty
// file). UsageError on a row read_csv refuses, a missing column, a run_id that
// is not a run number or a field outside its unit.
CsvRow scan_side_table(const std::filesystem::path& file, std::string_view table, std::vector<std::size_t>& at,
                       const std::function<void(const CsvRow& row)>& each);
// The same, every row at once.
std::vector<CsvRow> read_side_table(const std::filesystem::path& file, std::string_view table,
                                    std::vector<std::size_t>& at, CsvRow* header = nullptr);

// Every side table `dir` holds, read as above (UsageError for a damaged one),
// so a command refuses a damaged folder whichever of its files it uses. Rows
// of a run runs.csv lacks are not damage (a row removed by hand): readers key
// them by run_id. A no-op when `dir` is not a folder (a runs.csv given alone).
void check_side_tables(const std::filesystem::path& dir);

}  // namespace allocstamp
