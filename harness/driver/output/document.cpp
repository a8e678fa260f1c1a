// document.cpp — the renderers of the output model (document.h).
#include "output/document.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>
#include <string_view>

#include "results/csv.h"

namespace allocstamp {

namespace {

std::string md_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::string_view("\\`*_[]<>|#!").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::string html_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

const char* kCss = R"(body { font-family: system-ui, sans-serif; max-width: 1200px; margin: 2em auto; padding: 0 1em; color: #222; }
h1, h2, h3 { font-weight: 600; } h2 { border-bottom: 1px solid #ddd; padding-bottom: .2em; margin-top: 2em; }
table { border-collapse: collapse; margin: .5em 0 1.5em; font-size: 90%; }
th, td { border: 1px solid #ccc; padding: .25em .6em; } th { background: #f3f3f3; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
pre { background: #f6f6f6; padding: .7em; overflow-x: auto; }
figure { margin: 1em 0 2.5em; } figure img { max-width: 100%; border: 1px solid #eee; } figcaption { color: #444; margin-top: .4em; }
ul.notes { color: #8a5a00; margin-top: .3em; }
nav ul.contents { list-style: none; padding-left: 0; columns: 2; } nav li.sub { padding-left: 1.2em; font-size: 92%; }
details > summary { cursor: pointer; color: #225; margin: .4em 0; } section.findings li { margin: .2em 0; }
)";

// The document as a person may be shown it: every text a block holds (a
// cell, the command line, a heading) with its control bytes escaped
// (printable_text). What meta.json or runs.csv hold reaches a report or a
// terminal through here: a NUL, an escape sequence or a newline of theirs
// never arrives raw.
Document printable_document(const Document& doc) {
  Document out = doc;
  for (Block& b : out) {
    for (std::string* text : {&b.text, &b.image, &b.caption, &b.summary}) *text = printable_text(*text);
    for (std::string& item : b.items) item = printable_text(item);
    for (auto& row : b.rows)
      for (std::string& cell : row) cell = printable_text(cell);
  }
  return out;
}

bool is_code(const Block& b, size_t column) { return column < b.code_columns; }

std::string md_cell(const Block& b, size_t column, const std::string& text) {
  return is_code(b, column) && !text.empty() ? "`" + text + "`" : md_escape(text);
}

std::string html_cell(const Block& b, size_t column, const std::string& text) {
  return is_code(b, column) && !text.empty() ? "<code>" + html_escape(text) + "</code>" : html_escape(text);
}

// Aligned columns, two spaces apart; the last column is ragged, trailing spaces trimmed.
std::string text_rows(const Block& b, const std::vector<size_t>& columns, const std::vector<size_t>& width) {
  std::string out;
  for (const auto& row : b.rows) {
    std::string line(b.indent, ' ');
    for (size_t k = 0; k < columns.size(); ++k) {
      const size_t i = columns[k];
      const std::string cell = i < row.size() ? row[i] : "";
      std::string pad(width[i] - cell.size(), ' ');
      if (k) line += "  ";
      line += k + 1 == columns.size() ? (right_aligned(b, i) ? pad + cell : cell)
              : right_aligned(b, i) ? pad + cell
                                    : cell + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

// Block::grouped_with_notes: the first column as group lines, the last as
// note lines under its row, the columns between aligned.
std::string grouped_table(const Block& b, size_t max_width) {
  const size_t last = b.rows.front().size() - 1, rows_indent = b.indent + 2, notes_indent = b.indent + 4;
  Block middle = b;
  middle.grouped_with_notes = false;
  middle.indent = rows_indent;
  if (!middle.align.empty()) middle.align = middle.align.substr(1, last - 1);
  middle.text_columns = b.text_columns > 1 ? b.text_columns - 1 : 1;
  middle.code_columns = b.code_columns > 0 ? b.code_columns - 1 : 0;
  for (auto& row : middle.rows) row = std::vector<std::string>(row.begin() + 1, row.begin() + long(std::min(row.size(), last)));
  std::vector<size_t> width, all;
  for (const auto& row : middle.rows)
    for (size_t i = 0; i < row.size(); ++i) {
      if (width.size() <= i) width.push_back(0), all.push_back(i);
      width[i] = std::max(width[i], row[i].size());
    }
  auto line_of = [&](size_t r) {
    Block one = middle;
    one.rows = {middle.rows[r]};
    return text_rows(one, all, width);
  };
  const size_t room = max_width > notes_indent + 20 ? max_width - notes_indent : 0;
  std::string out = line_of(0), group;
  for (size_t r = 1; r < b.rows.size(); ++r) {
    const std::vector<std::string>& row = b.rows[r];
    if (r == 1 || row.front() != group) out += std::string(b.indent, ' ') + (group = row.front()) + "\n";
    out += line_of(r);
    if (row.size() <= last || row[last].empty()) continue;
    std::istringstream note(room ? wrap_words(row[last], room) : row[last]);
    for (std::string part; std::getline(note, part);) out += std::string(notes_indent, ' ') + part + "\n";
  }
  return out;
}

// The table in aligned columns; wider than `max_width`, with key columns: in
// blocks of the other columns, each under the key columns, a blank line apart.
std::string text_table(const Block& b, size_t max_width) {
  if (b.grouped_with_notes && !b.rows.empty() && b.rows.front().size() > 2) return grouped_table(b, max_width);
  std::vector<size_t> width;
  for (const auto& row : b.rows)
    for (size_t i = 0; i < row.size(); ++i) {
      if (width.size() <= i) width.push_back(0);
      width[i] = std::max(width[i], row[i].size());
    }
  std::vector<size_t> all(width.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  size_t total = b.indent;
  for (size_t i = 0; i < width.size(); ++i) total += width[i] + (i ? 2 : 0);
  if (max_width == 0 || total <= max_width || b.key_columns == 0 || b.key_columns >= width.size())
    return text_rows(b, all, width);
  std::vector<size_t> keys(all.begin(), all.begin() + long(b.key_columns));
  size_t key_width = b.indent;
  for (size_t i : keys) key_width += width[i] + 2;
  std::string out;
  std::vector<size_t> block = keys;
  size_t used = key_width;
  for (size_t i = b.key_columns; i < width.size(); ++i) {
    if (block.size() > keys.size() && used + width[i] > max_width) {
      if (!out.empty()) out += "\n";
      out += text_rows(b, block, width);
      block = keys;
      used = key_width;
    }
    block.push_back(i);
    used += width[i] + 2;
  }
  if (!out.empty()) out += "\n";
  out += text_rows(b, block, width);
  return out;
}

}  // namespace

Block heading(int level, const std::string& text) {
  Block b;
  b.kind = Block::Kind::heading;
  b.level = level;
  b.text = text;
  return b;
}

Block paragraph(const std::string& text) {
  Block b;
  b.text = text;
  return b;
}

Block list(std::vector<std::string> items, size_t indent) {
  Block b;
  b.kind = Block::Kind::list;
  b.items = std::move(items);
  b.indent = indent;
  return b;
}

Block contents() {
  Block b;
  b.kind = Block::Kind::contents;
  return b;
}

std::vector<std::string> anchors(const Document& doc) {
  std::vector<std::string> out(doc.size());
  std::map<std::string, int> seen;
  for (std::size_t i = 0; i < doc.size(); ++i)
    if (doc[i].kind == Block::Kind::heading) {
      std::string a = anchor_of(doc[i].text);
      int n = seen[a]++;
      out[i] = n == 0 ? a : a + "-" + std::to_string(n);
    }
  return out;
}

std::string anchor_of(const std::string& heading) {
  std::string out;
  for (unsigned char c : heading) {
    if (std::isalnum(c) || c == '-' || c == '_') out += char(std::tolower(c));
    else if (c == ' ') out += '-';
  }
  return out;
}

Block table(std::vector<std::vector<std::string>> rows, size_t text_columns) {
  Block b;
  b.kind = Block::Kind::table;
  b.rows = std::move(rows);
  b.text_columns = text_columns;
  return b;
}

bool right_aligned(const Block& table, size_t column) {
  if (column < table.align.size()) return table.align[column] == 'r';
  return column >= table.text_columns;
}

std::string render_text(const Document& shown, std::size_t width) {
  const Document doc = printable_document(shown);
  std::string out;
  for (const Block& b : doc) {
    switch (b.kind) {
      case Block::Kind::heading:
        out += "\n" + b.text + "\n";
        break;
      case Block::Kind::paragraph:
      case Block::Kind::code:
        out += b.text + "\n";
        break;
      case Block::Kind::table:
        if (!b.summary.empty()) out += b.summary + "\n";
        out += text_table(b, width);
        break;
      case Block::Kind::contents:
        break;
      case Block::Kind::figure:
        out += b.text + ": " + b.image + ".png\n  " + b.caption + "\n";
        for (const auto& note : b.items) out += "  - " + note + "\n";
        break;
      case Block::Kind::list:
        for (const auto& item : b.items) out += std::string(b.indent, ' ') + item + "\n";
        break;
    }
  }
  return out;
}

std::string render_markdown(const Document& shown) {
  const Document doc = printable_document(shown);
  std::string out;
  const std::vector<std::string> ids = anchors(doc);
  for (const Block& b : doc) {
    switch (b.kind) {
      case Block::Kind::heading:
        out += std::string(b.level, '#') + " " + md_escape(b.text) + "\n\n";
        break;
      case Block::Kind::paragraph:
        out += md_escape(b.text) + "\n\n";
        break;
      case Block::Kind::code: {
        // A fence longer than any run of backticks inside.
        size_t run = 0, longest = 0;
        for (char c : b.text) longest = std::max(longest, run = c == '`' ? run + 1 : 0);
        std::string fence(std::max<size_t>(3, longest + 1), '`');
        out += fence + "sh\n" + b.text + "\n" + fence + "\n\n";
        break;
      }
      case Block::Kind::contents:
        for (std::size_t i = 0; i < doc.size(); ++i)
          if (doc[i].kind == Block::Kind::heading && (doc[i].level == 2 || doc[i].level == 3))
            out += std::string(doc[i].level == 3 ? "  " : "") + "- [" + md_escape(doc[i].text) + "](#" + ids[i] + ")\n";
        out += "\n";
        break;
      case Block::Kind::table:
        if (!b.summary.empty()) out += "<details><summary>" + html_escape(b.summary) + "</summary>\n\n";
        for (size_t r = 0; r < b.rows.size(); ++r) {
          out += "|";
          for (size_t c = 0; c < b.rows[r].size(); ++c)
            out.append(" ").append(r == 0 ? md_escape(b.rows[r][c]) : md_cell(b, c, b.rows[r][c])).append(" |");
          out += "\n";
          if (r == 0) {
            out += "|";
            for (size_t c = 0; c < b.rows[r].size(); ++c) out += right_aligned(b, c) ? "---:|" : "---|";
            out += "\n";
          }
        }
        out += "\n";
        if (!b.summary.empty()) out += "</details>\n\n";
        break;
      case Block::Kind::figure:
        // The title once, under the image (which draws it too).
        out += "![" + md_escape(b.text) + "](" + b.image + ".png)\n\n**" + md_escape(b.text) + ".** " +
               md_escape(b.caption) + " ([SVG](" + b.image + ".svg))\n\n";
        for (const auto& note : b.items) out += "- " + md_escape(note) + "\n";
        if (!b.items.empty()) out += "\n";
        break;
      case Block::Kind::list:
        for (const auto& item : b.items) out += "- " + md_escape(item) + "\n";
        out += "\n";
        break;
    }
  }
  return out;
}

std::string render_html(const Document& shown) {
  const Document doc = printable_document(shown);
  std::string title;
  for (const Block& b : doc)
    if (b.kind == Block::Kind::heading && b.level == 1) title = b.text;
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + html_escape(title) +
                    "</title>\n<style>\n" + kCss + "</style>\n</head>\n<body>\n";
  const std::vector<std::string> ids = anchors(doc);
  for (const Block& b : doc) {
    switch (b.kind) {
      case Block::Kind::heading: {
        std::string h = "h" + std::to_string(b.level);
        out += "<" + h + " id=\"" + ids[std::size_t(&b - doc.data())] + "\">" + html_escape(b.text) + "</" + h + ">\n";
        break;
      }
      case Block::Kind::contents:
        out += "<nav><ul class=\"contents\">\n";
        for (std::size_t i = 0; i < doc.size(); ++i)
          if (doc[i].kind == Block::Kind::heading && (doc[i].level == 2 || doc[i].level == 3))
            out += std::string(doc[i].level == 3 ? "<li class=\"sub\">" : "<li>") + "<a href=\"#" + ids[i] + "\">" +
                   html_escape(doc[i].text) + "</a></li>\n";
        out += "</ul></nav>\n";
        break;
      case Block::Kind::paragraph:
        out += "<p>" + html_escape(b.text) + "</p>\n";
        break;
      case Block::Kind::code:
        out += "<pre><code>" + html_escape(b.text) + "</code></pre>\n";
        break;
      case Block::Kind::table:
        if (!b.summary.empty()) out += "<details><summary>" + html_escape(b.summary) + "</summary>\n";
        out += "<table>\n";
        for (size_t r = 0; r < b.rows.size(); ++r) {
          out += "<tr>";
          for (size_t c = 0; c < b.rows[r].size(); ++c) {
            if (r == 0) out += "<th>" + html_escape(b.rows[r][c]) + "</th>";
            else out += (right_aligned(b, c) ? "<td class=\"n\">" : "<td>") + html_cell(b, c, b.rows[r][c]) + "</td>";
          }
          out += "</tr>\n";
        }
        out += "</table>\n";
        if (!b.summary.empty()) out += "</details>\n";
        break;
      case Block::Kind::figure:
        // The title once, under the image (which draws it too).
        out += "<figure>\n<a href=\"" + html_escape(b.image) + ".svg\"><img src=\"" + html_escape(b.image) +
               ".png\" alt=\"" + html_escape(b.text) + "\"></a>\n<figcaption><b>" + html_escape(b.text) + ".</b> " +
               html_escape(b.caption) + "</figcaption>\n";
        if (!b.items.empty()) {
          out += "<ul class=\"notes\">\n";
          for (const auto& note : b.items) out += "<li>" + html_escape(note) + "</li>\n";
          out += "</ul>\n";
        }
        out += "</figure>\n";
        break;
      case Block::Kind::list:
        out += "<ul>\n";
        for (const auto& item : b.items) out += "<li>" + html_escape(item) + "</li>\n";
        out += "</ul>\n";
        break;
    }
  }
  return out + "</body>\n</html>\n";
}

std::string render_csv(const Block& table) {
  std::ostringstream out;
  for (const auto& row : table.rows) write_row(out, row);
  return out.str();
}

}  // namespace allocstamp
