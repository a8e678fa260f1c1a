// micro_results.cpp — the one reader of micro.csv (micro_results.h).
#include "results/micro_results.h"

#include <cstdlib>

#include "key_names.h"
#include "results/side_tables.h"

namespace allocstamp {

namespace fs = std::filesystem;

std::vector<MicroRow> load_micro(const fs::path& path) {
  std::error_code ec;
  fs::path file = fs::is_directory(path, ec) ? path / "micro.csv" : path.parent_path() / "micro.csv";
  std::vector<MicroRow> out;
  if (!fs::exists(file, ec)) return out;
  std::vector<std::size_t> at;  // keys.def's micro columns, in order
  const std::vector<CsvRow> rows = read_side_table(file, "micro", at);
  const std::size_t id = at[0], kind = at[1], bench = at[2], size = at[3], threads = at[4], rep = at[5], iters = at[6],
                    real = at[7], cpu = at[8], items = at[9];
  for (const CsvRow& row : rows) {
    MicroRow m;
    m.run_id = std::atol(row[id].c_str());
    m.kind = row[kind] == "profiled" ? RunKind::profiled : RunKind::timed;
    m.benchmark = row[bench];
    m.size_bytes = std::atol(row[size].c_str());
    m.threads = std::atol(row[threads].c_str());
    m.repetition = std::atol(row[rep].c_str());
    m.iterations = std::atol(row[iters].c_str());
    m.real_ns_per_op = std::atof(row[real].c_str());
    m.cpu_ns_per_op = std::atof(row[cpu].c_str());
    m.items_per_s = std::atof(row[items].c_str());
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace allocstamp
