// merge_tables.cpp — joining one per-run table of a sweep's parts (merge_tables.h).
#include "results/merge_tables.h"

#include <algorithm>
#include <fstream>
#include <string>
#include <utility>

#include "model/errors.h"
#include "key_names.h"
#include "results/runs.h"
#include "results/side_tables.h"

namespace allocstamp {

namespace fs = std::filesystem;

void merge_table(const std::vector<fs::path>& parts, const fs::path& out, const std::string& name) {
  CsvRow header;
  bool any = false;
  std::vector<std::pair<unsigned long long, CsvRow>> rows;
  for (const fs::path& part : parts) {
    fs::path file = part / name;
    if (!fs::exists(fs::symlink_status(file))) continue;
    CsvRow h;
    std::vector<CsvRow> table;
    if (name == "runs.csv") {
      RunsTable runs = load_runs(file, "part " + part.string());
      h = runs.header;
      table = std::move(runs.rows);
    } else {
      std::vector<std::size_t> at;
      table = read_side_table(file, name.substr(0, name.find('.')), at, &h);
    }
    if (any && h != header)
      throw UsageError(file.string() + " has other columns than " + (parts.front() / name).string(),
                       "merge parts written by the same bench");
    header = h;
    any = true;
    const std::size_t id = std::size_t(std::find(h.begin(), h.end(), keys::run_id) - h.begin());
    if (id == h.size()) throw UsageError(file.string() + " has no run_id column", "the part is damaged");
    for (CsvRow& r : table) rows.push_back({std::stoull(r[id]), std::move(r)});  // run ids checked by the readers
  }
  if (!any) return;
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::ofstream f(out / name);
  f << schema_line(name.c_str()) << "\n";
  write_row(f, header);
  for (const auto& [id, row] : rows) write_row(f, row);
  f.close();
  if (!f) throw RunError("cannot write " + (out / name).string(), "check the free space");
}

}  // namespace allocstamp
