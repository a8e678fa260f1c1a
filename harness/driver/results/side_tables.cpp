// side_tables.cpp — the checks of side_tables.h over scan_csv.
#include "results/side_tables.h"

#include <algorithm>
#include <string>

#include "model/errors.h"
#include "key_names.h"
#include "model/fields.h"

namespace allocstamp {

CsvRow scan_side_table(const std::filesystem::path& file, std::string_view table, std::vector<std::size_t>& at,
                       const std::function<void(const CsvRow& row)>& each) {
  std::vector<keys::SideColumn> columns;
  for (const keys::SideColumn& c : keys::side_columns)
    if (c.table == table) columns.push_back(c);
  auto find_columns = [&](const CsvRow& head) {
    at.clear();
    for (const keys::SideColumn& c : columns) {
      auto it = std::find(head.begin(), head.end(), c.name);
      if (it == head.end())
        throw UsageError(file.string() + " lacks the column '" + std::string(c.name) + "'",
                         "it is not a " + std::string(table) + ".csv written by bench: run the sweep again");
      at.push_back(std::size_t(it - head.begin()));
    }
  };
  bool checked_header = false;
  std::size_t row_number = 0;
  // callsites.csv sits beside callsites/, the folder memprof writes into: like
  // the files there, it is read only as itself, never through a link (the
  // other tables' links are refused when a sweep starts or resumes).
  const Links links = table == "callsites" ? Links::refuse : Links::follow;
  const CsvRow header = scan_csv(file, [&](const CsvRow& head, const CsvRow& row) {
    if (!checked_header) find_columns(head), checked_header = true;
    ++row_number;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const std::string& field = row[at[i]];
      std::string problem;
      if (i == 0 && (!is_count(field) || field[0] == '0')) problem = "'" + field + "' is not a run number";
      else if (!field.empty()) problem = field_problem(columns[i].type, field);
      if (!problem.empty())
        throw UsageError(file.string() + ": data row " + std::to_string(row_number) + ", column " +
                             std::string(columns[i].name) + ": " + problem,
                         "the file is damaged: repair that row or rerun the benchmark");
    }
    each(row);
  }, links);
  if (!checked_header && !header.empty()) find_columns(header);  // a header without rows: its columns still count
  return header;
}

std::vector<CsvRow> read_side_table(const std::filesystem::path& file, std::string_view table,
                                    std::vector<std::size_t>& at, CsvRow* header) {
  std::vector<CsvRow> rows;
  CsvRow head = scan_side_table(file, table, at, [&rows](const CsvRow& row) { rows.push_back(row); });
  if (header) *header = std::move(head);
  return rows;
}

void check_side_tables(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return;
  for (const char* table : {"series", "scopes", "micro", "callsites"}) {
    const std::filesystem::path file = dir / (std::string(table) + ".csv");
    if (!std::filesystem::exists(std::filesystem::symlink_status(file, ec))) continue;
    std::vector<std::size_t> at;
    scan_side_table(file, table, at, [](const CsvRow&) {});
  }
}

}  // namespace allocstamp
