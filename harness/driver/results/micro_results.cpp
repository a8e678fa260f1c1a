// micro_results.cpp — the one reader of micro.csv (micro_results.h).
#include "results/micro_results.h"

#include <cstdlib>

#include "key_names.h"
#include "results/csv.h"
#include "errors.h"

namespace allocstamp {

namespace fs = std::filesystem;

std::vector<MicroRow> load_micro(const fs::path& path) {
  std::error_code ec;
  fs::path file = fs::is_directory(path, ec) ? path / "micro.csv" : path.parent_path() / "micro.csv";
  std::vector<MicroRow> out;
  if (!fs::exists(file, ec)) return out;
  CsvRow header;
  std::vector<CsvRow> rows = read_csv(file, &header);
  auto column = [&](const char* name) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    throw UsageError(file.string() + " lacks the column '" + name + "'", "it is not a micro.csv written by bench");
  };
  namespace mc = keys::micro;
  const std::size_t id = column(mc::run_id), kind = column(mc::kind), bench = column(mc::benchmark),
                    size = column(mc::size_bytes), threads = column(mc::threads), rep = column(mc::repetition),
                    iters = column(mc::iterations), real = column(mc::real_ns_per_op), cpu = column(mc::cpu_ns_per_op),
                    items = column(mc::items_per_s);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const CsvRow& row = rows[r];
    if (row.size() != header.size())
      throw UsageError(file.string() + ": data row " + std::to_string(r + 1) + " has " + std::to_string(row.size()) +
                           " fields, the header " + std::to_string(header.size()),
                       "the file is damaged: repair or remove that row");
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
