// commands/list.cpp — what bench knows, for a person: `--list` (allocators and
// workloads, installed or not, with versions; the presets) and `--columns`
// (runs.csv's columns, from the key table, as Markdown: each with its type,
// the largest value a supported run gives it, and its meaning).
#include "commands/commands.h"
#include "output/document.h"
#include "cli/presets.h"
#include "cli/registry.h"
#include "cli/selection.h"
#include "results/results_folder.h"

namespace allocstamp {

int command_list(const Options& options, const Paths& paths, std::ostream& out) {
  print_list(load_catalog(options, paths), paths, out);
  print_presets(load_presets(paths.source / "workloads" / "presets.json"), out);
  return 0;
}

// keys.def's bound, "<value>: why", as "<value> (why)".
std::string bound_text(const std::string& bound) {
  const std::size_t colon = bound.find(": ");
  return colon == std::string::npos ? bound : bound.substr(0, colon) + " (" + bound.substr(colon + 2) + ")";
}

Block columns_table() {
  Block columns = table({{"column", "type", "largest value", "meaning"}}, 4);
  columns.code_columns = 1;
  for (const Column& c : run_columns()) columns.rows.push_back({c.name, c.type, bound_text(c.bound), c.meaning});
  return columns;
}

int command_columns(std::ostream& out) {
  out << render_markdown({columns_table()});
  return 0;
}

}  // namespace allocstamp
