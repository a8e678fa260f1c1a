// csv.cpp — quoting, splitting and the schema-checking reader of csv.h.
#include "results/csv.h"

#include <cmath>
#include <cstdlib>
#include <limits>

#include <algorithm>
#include <cstdlib>
#include <fstream>

#include "errors.h"
#include "keys.h"

namespace allocstamp {

namespace fs = std::filesystem;

std::string csv_quote(const std::string& field) {
  if (field.find_first_of(",\"\n") == std::string::npos) return field;
  std::string out = "\"";
  for (char c : field) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void write_row(std::ostream& out, const CsvRow& row) {
  for (size_t i = 0; i < row.size(); ++i) out << (i ? "," : "") << csv_quote(row[i]);
  out << '\n';
}

CsvRow split_csv_line(const std::string& line) {
  CsvRow row;
  std::string cell;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') cell += '"', ++i;
      else if (c == '"') quoted = false;
      else cell += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(cell);
      cell.clear();
    } else {
      cell += c;
    }
  }
  row.push_back(cell);
  return row;
}

std::string schema_line(const char* file) {
  return std::string("# allocstamp ") + file + " schema " + std::to_string(contract::kResultsSchema);
}

CsvRow scan_csv(const fs::path& file, const std::function<void(const CsvRow&, const CsvRow&)>& each) {
  std::ifstream in(file);
  if (!in) throw UsageError("cannot read " + file.string(), "is it a bench results folder?");
  CsvRow header;
  std::string line;
  bool have_header = false;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF line ends (a Windows editor) read as LF
    if (line.rfind("# allocstamp", 0) == 0) {
      int schema = std::atoi(line.substr(line.rfind(' ') + 1).c_str());
      if (schema > contract::kResultsSchema)
        throw UsageError(file.string() + " has schema " + std::to_string(schema) + ", newer than this bench",
                         "read it with a newer allocstamp");
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    CsvRow row = split_csv_line(line);
    if (!have_header) {
      header = std::move(row);
      have_header = true;
    } else {
      each(header, row);
    }
  }
  return header;
}

std::vector<CsvRow> read_csv(const fs::path& file, CsvRow* header) {
  std::vector<CsvRow> rows;
  CsvRow head = scan_csv(file, [&rows](const CsvRow&, const CsvRow& row) { rows.push_back(row); });
  if (header) *header = std::move(head);
  return rows;
}

std::vector<CsvRow> read_csv_columns(const fs::path& file, const std::vector<std::string>& wanted,
                                     std::vector<std::size_t>& at) {
  CsvRow header;
  std::vector<CsvRow> rows = read_csv(file, &header);
  at.clear();
  for (const std::string& name : wanted) {
    auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) throw UsageError(file.string() + " lacks the column " + name, "run the sweep again");
    at.push_back(std::size_t(it - header.begin()));
  }
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].size() != header.size())
      throw UsageError(file.string() + ": data row " + std::to_string(i + 1) + " has " + std::to_string(rows[i].size()) +
                           " fields, the header " + std::to_string(header.size()),
                       "the file is damaged: run the sweep again");
  return rows;
}

double field_number(const std::string& field) {
  if (field.empty()) return std::numeric_limits<double>::quiet_NaN();
  char* end = nullptr;
  const double v = std::strtod(field.c_str(), &end);
  return *end == '\0' && std::isfinite(v) ? v : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace allocstamp
