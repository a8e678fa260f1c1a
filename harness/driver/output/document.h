// document.h — the one output model: what bench shows a person (the ranking,
// the check table, --columns, the report) is a Document of blocks, and each
// output format is one renderer of it: text for the terminal, Markdown, HTML,
// and CSV for a table. So the formats cannot disagree, and each renderer is
// tested against expected files (tests/expected/). The text renderers show
// control bytes escaped (printable_text), whatever a block holds.
#pragma once
#include <string>
#include <vector>

#include "model/format.h"

namespace allocstamp {

struct Block {
  // contents: a table of contents, links to the document's level-2 and -3 headings.
  enum class Kind { heading, paragraph, code, table, figure, list, contents };
  Kind kind = Kind::paragraph;
  int level = 2;                               // heading
  std::string text;                            // heading, paragraph, code; a figure's title
  std::vector<std::string> items;              // list; a figure's notes
  std::vector<std::vector<std::string>> rows;  // table: the header first
  size_t text_columns = 1;                     // table: leading left-aligned columns, the rest are numbers
  std::string align;                           // table: 'l' or 'r' per column, when not text_columns' rule
  size_t code_columns = 0;                     // table: leading columns whose cells are code (names, keys)
  size_t indent = 0;                           // text: spaces before a table's or a list's lines
  // text: a table wider than the terminal is cut into column blocks one under
  // another, each repeating these leading columns (0: never cut).
  size_t key_columns = 0;
  // text, for a table whose rows would not fit the width (bench check's):
  // rows grouped by their first column, its value on a line of its own where
  // it changes and the rows under it indented two more without it; the last
  // column's cells (a long note) on lines of their own under their row,
  // indented four more and wrapped to the width. The headers leave both
  // columns out. The other formats show them as columns.
  bool grouped_with_notes = false;
  std::string image, caption;                  // figure: stem relative to the folder (no extension)
  std::string summary;                         // table: when set, folded under this line (HTML <details>)
};
using Document = std::vector<Block>;

Block heading(int level, const std::string& text);
Block paragraph(const std::string& text);
Block list(std::vector<std::string> items, size_t indent = 0);
Block table(std::vector<std::vector<std::string>> rows, size_t text_columns = 1);
Block contents();

// A heading's anchor: lower case, letters, digits, '-' and '_' kept, spaces
// as '-', the rest dropped (GitHub's rule for Markdown, the HTML ids too).
std::string anchor_of(const std::string& heading);
// Every heading's anchor in order (empty for other blocks): a repeated one
// gets "-1", "-2", ... as GitHub numbers them.
std::vector<std::string> anchors(const Document& doc);

// Is a table's column right-aligned (a number)?
bool right_aligned(const Block& table, size_t column);

// For a terminal: tables aligned in columns (two spaces apart, the last
// column ragged), headings after a blank line. A table with key columns that
// is wider than `width` is cut into column blocks that fit (0: never).
std::string render_text(const Document& doc, std::size_t width = kTerminalWidth);
// Markdown with every special character escaped (code cells in backticks).
std::string render_markdown(const Document& doc);
// One HTML page with a little embedded CSS; the first level-1 heading is its title.
std::string render_html(const Document& doc);
// A table as CSV (RFC 4180), the header first.
std::string render_csv(const Block& table);

}  // namespace allocstamp
