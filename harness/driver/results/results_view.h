// results_view.h — a results folder read for the figures, the report and the
// terminal's table: its runs grouped into cells and the meta.json beside them.
#pragma once
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/cells.h"
#include "results/runs.h"

namespace allocstamp {

// A results folder read for the figures, the report and the terminal's table:
// its runs grouped into cells (cells.h) and the meta.json beside them.
struct ResultsView {
  std::filesystem::path dir;
  std::shared_ptr<const RunsTable> table;  // the cells point into it
  Cells cells;
  nlohmann::json meta = nlohmann::json::object();  // empty when meta.json is missing
  std::vector<std::string> notes;       // problems with the folder that do not stop plotting
};

// Reads runs.csv and meta.json; throws UsageError when the folder is missing or malformed.
ResultsView load_results(const std::filesystem::path& dir);
// The folder `dir` whose runs.csv is `table` (a sweep's own, held since it was
// written: results_folder.h), with its meta.json and side tables read and
// checked as load_results does; UsageError when the table holds no runs.
ResultsView results_view_of(const std::filesystem::path& dir, const RunsTable& table);

// "host, CPU, date" from meta.json, for a corner of every figure.
std::string machine_stamp(const nlohmann::json& meta);

}  // namespace allocstamp
