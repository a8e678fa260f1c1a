// terminal_lines.cpp — lines wrapped to the terminal's width (terminal_lines.h).
#include "output/terminal_lines.h"

#include <iostream>

#include "model/format.h"

namespace allocstamp {

namespace {

// The byte length of the escape sequence at text[i] (ESC [ parameters, a final
// letter), or 0 when none starts there.
std::size_t escape_length(const std::string& text, std::size_t i) {
  if (text[i] != '\033' || i + 1 >= text.size() || text[i + 1] != '[') return 0;
  std::size_t j = i + 2;
  while (j < text.size() && !(text[j] >= '@' && text[j] <= '~')) ++j;
  return j < text.size() ? j - i + 1 : text.size() - i;
}

// The columns text[0, end) takes.
std::size_t width_of(const std::string& text, std::size_t end) {
  std::size_t columns = 0;
  for (std::size_t i = 0; i < end;) {
    if (std::size_t escape = escape_length(text, i)) {
      i += escape;
      continue;
    }
    const unsigned char c = static_cast<unsigned char>(text[i++]);
    if (c == '\t') columns = (columns / 8 + 1) * 8;
    else if ((c & 0xC0) != 0x80) ++columns;  // a UTF-8 continuation byte adds no column
  }
  return columns;
}

}  // namespace

std::size_t display_width(const std::string& text) { return width_of(text, text.size()); }

std::size_t hanging_indent(const std::string& line) {
  const std::size_t lead = line.find_first_not_of(' ');
  if (lead == std::string::npos) return 0;
  for (std::size_t i = line.find("  ", lead); i != std::string::npos && i < 60; i = line.find("  ", i + 1)) {
    const std::size_t text = line.find_first_not_of(' ', i);
    if (text == std::string::npos || text > 60) break;
    return width_of(line, text);
  }
  return width_of(line, lead) + 2;
}

std::string wrap_line(const std::string& line, std::size_t width) {
  if (width == 0 || display_width(line) <= width) return line + "\n";
  const std::string hang(std::min(hanging_indent(line), width / 2), ' ');
  std::string out, rest = line;
  bool first = true;
  while (display_width(rest) > width) {
    // The last space at which the part before it fits; else the first after it (a long word stands alone).
    const std::size_t from = first ? rest.find_first_not_of(' ') : hang.size();
    std::size_t cut = std::string::npos;
    for (std::size_t i = rest.find(' ', from); i != std::string::npos; i = rest.find(' ', i + 1)) {
      if (width_of(rest, i) > width) {
        if (cut == std::string::npos) cut = i;
        break;
      }
      cut = i;
    }
    if (cut == std::string::npos) break;  // one word, however long
    std::size_t end = cut;
    while (end > 0 && rest[end - 1] == ' ') --end;
    const std::size_t next = rest.find_first_not_of(' ', cut);
    if (next == std::string::npos) {
      rest.resize(end);
      break;
    }
    out += rest.substr(0, end) + "\n";
    rest = hang + rest.substr(next);
    first = false;
  }
  return out + rest + "\n";
}

TerminalLines::TerminalLines(std::streambuf* target, std::size_t width) : target_(target), width_(width) {}

TerminalLines::~TerminalLines() {
  if (!line_.empty()) emit(line_);
  target_->pubsync();
}

void TerminalLines::set_width(std::size_t width) { width_ = width; }

void TerminalLines::emit(const std::string& text) {
  target_->sputn(text.data(), static_cast<std::streamsize>(text.size()));
}

void TerminalLines::end_line() {
  emit(wrap_line(line_, width_));
  line_.clear();
}

TerminalLines::int_type TerminalLines::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  const char byte = traits_type::to_char_type(c);
  xsputn(&byte, 1);
  return c;
}

std::streamsize TerminalLines::xsputn(const char* s, std::streamsize n) {
  for (std::streamsize i = 0; i < n; ++i) {
    if (width_ == 0) {
      // Passing through: what was held of the line first.
      if (!line_.empty()) emit(line_), line_.clear();
      emit(std::string(s + i, s + n));
      return n;
    }
    if (s[i] == '\n') end_line();
    else line_ += s[i];
  }
  // A line that never ends (a binary dump) is not held without limit.
  if (line_.size() > (std::size_t(1) << 20)) emit(line_), line_.clear();
  return n;
}

int TerminalLines::sync() { return target_->pubsync(); }

TerminalWidth::TerminalWidth()
    : cout_target_(std::cout.rdbuf()),
      cerr_target_(std::cerr.rdbuf()),
      cout_lines_(cout_target_, kTerminalWidth),
      cerr_lines_(cerr_target_, kTerminalWidth) {
  std::cout.rdbuf(&cout_lines_);
  std::cerr.rdbuf(&cerr_lines_);
}

TerminalWidth::~TerminalWidth() {
  std::cout.flush();
  std::cerr.flush();
  std::cout.rdbuf(cout_target_);
  std::cerr.rdbuf(cerr_target_);
}

void TerminalWidth::narrow(bool stdout_lines, bool stderr_lines) {
  cout_lines_.set_width(stdout_lines ? kTerminalWidth : 0);
  cerr_lines_.set_width(stderr_lines ? kTerminalWidth : 0);
}

}  // namespace allocstamp
