// report.h — report.md and report.html of a results folder: the setup from
// meta.json, the summary of every cell, and every figure with a caption on how
// to read it. Both files render one document, so they always agree.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "figures.h"

namespace allocstamp {

struct Block {
  enum class Kind { heading, paragraph, code, table, figure, list };
  Kind kind = Kind::paragraph;
  int level = 2;                               // heading
  std::string text;                            // heading, paragraph, code; a figure's title
  std::vector<std::string> items;              // list; a figure's notes
  std::vector<std::vector<std::string>> rows;  // table: the header first
  size_t text_columns = 1;                     // table: leading left-aligned columns, the rest are numbers
  std::string image, caption;                  // figure: stem relative to the folder (no extension)
};
using Document = std::vector<Block>;

Document build_report(const ResultsView& view, const std::vector<CellSummary>& cells, const FigurePlan& plan);
std::string render_markdown(const Document& doc);
std::string render_html(const Document& doc);

// Writes view.dir/report.md and view.dir/report.html.
void write_report(const ResultsView& view, const std::vector<CellSummary>& cells, const FigurePlan& plan);

}  // namespace allocstamp
