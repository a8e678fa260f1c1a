// csv.h — the CSV files bench writes and reads (RFC 4180 quoting), one reader
// for all of them: a first line "# allocstamp <file> schema <n>", a header,
// rows. Typed readers (runs.h) sit on top of this one.
#pragma once
#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace allocstamp {

using CsvRow = std::vector<std::string>;

// A field, quoted when it holds a comma, a quote or a newline.
std::string csv_quote(const std::string& field);
// One row, fields quoted as needed, ending in '\n'.
void write_row(std::ostream& out, const CsvRow& row);
// A field as a number: NaN when it is empty or not all of it is a finite
// number. The one number parser of every CSV reader.
double field_number(const std::string& field);
// One line split into fields.
CsvRow split_csv_line(const std::string& line);
// "# allocstamp <file> schema <current schema>"
std::string schema_line(const char* file);
// Reads a CSV written by bench (comment lines skipped); refuses a newer schema.
std::vector<CsvRow> read_csv(const std::filesystem::path& file, CsvRow* header);
// The same reading, a row at a time (a file too large to hold, as a long
// sweep's series.csv): calls `each` with the header and every data row in turn,
// and returns the header (empty when the file has none).
CsvRow scan_csv(const std::filesystem::path& file,
                const std::function<void(const CsvRow& header, const CsvRow& row)>& each);
// Reads `file` and checks that every row has the header's width and that
// `wanted` columns are there; `at` gives their indexes in that order.
// UsageError names the file (and the row) otherwise.
std::vector<CsvRow> read_csv_columns(const std::filesystem::path& file, const std::vector<std::string>& wanted,
                                     std::vector<std::size_t>& at);

}  // namespace allocstamp
