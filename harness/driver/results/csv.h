// csv.h — the CSV files bench writes and reads (RFC 4180 quoting), one reader
// for all of them: a first line "# allocstamp <file> schema <n>", a header,
// rows. Typed readers (runs.h) sit on top of this one.
#pragma once
#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "model/input_file.h"

namespace allocstamp {

using CsvRow = std::vector<std::string>;

// The longest row a reader takes, quoted line ends included: 1 MiB. Rows bench
// writes are a few KiB (runs.csv's widest, with a long `extra`); a longer one is
// damage, refused before it can fill the memory.
constexpr std::size_t kMaxCsvRecord = std::size_t(1) << 20;

// A field, quoted when it holds a comma, a quote or a newline.
std::string csv_quote(const std::string& field);
// One row, fields quoted as needed, ending in '\n'.
void write_row(std::ostream& out, const CsvRow& row);
// A field as a number: NaN when it is empty or not all of it is a finite
// number. The one number parser of every CSV reader.
double field_number(const std::string& field);
// "# allocstamp <file> schema <current schema>"
std::string schema_line(const char* file);
// The schema a CSV bench wrote names on its first line; 0 when it names none.
int csv_schema(const std::filesystem::path& file);
// Reads a CSV written by bench (comment lines skipped). UsageError (exit 2),
// naming the file and the line, for: not a regular file, a newer schema, a
// row whose number of fields is not the header's, an unterminated quote, a
// stray quote, a NUL byte, a row past kMaxCsvRecord, a last line without its
// line end (torn by a kill or a full disk: --resume cuts it off).
std::vector<CsvRow> read_csv(const std::filesystem::path& file, CsvRow* header);
// The same reading, a row at a time (a file too large to hold, as a long
// sweep's series.csv): calls `each` with the header and every data row in turn,
// and returns the header (empty when the file has none). With Links::refuse, a
// link at the file's name is refused too (input_file.h).
CsvRow scan_csv(const std::filesystem::path& file,
                const std::function<void(const CsvRow& header, const CsvRow& row)>& each,
                Links links = Links::follow);

}  // namespace allocstamp
