// terminal_lines — every line bench prints within the terminal's 120 columns:
// a stream buffer in front of stdout's and stderr's that wraps a longer line
// at its words (never cutting one), the continuation hung under the line's
// text column (an option's description, a list item's text). main.cpp puts it
// in front of std::cout and std::cerr unless --wide, or CSV goes to stdout.
#pragma once

#include <cstddef>
#include <streambuf>
#include <string>

namespace allocstamp {

// The columns `text` takes on a terminal: UTF-8 characters count one, an
// escape sequence (ESC [ ... letter) none, a tab up to the next multiple of 8.
std::size_t display_width(const std::string& text);

// One line (no newline in it) as lines of at most `width` columns, each ended
// by "\n": broken at spaces, a word longer than a line standing alone; the
// first keeps its spacing (a table's, a help's columns), each continuation
// starts under the line's text column (hanging_indent).
std::string wrap_line(const std::string& line, std::size_t width);
// Where a wrapped line's continuations start: after the first run of two or
// more spaces that follows text within the first 60 columns (an option's
// description, a table's second column), else two past the line's indentation.
std::size_t hanging_indent(const std::string& line);

class TerminalLines : public std::streambuf {
 public:
  // Writes through `target`; width 0 passes every byte through as it is.
  TerminalLines(std::streambuf* target, std::size_t width);
  ~TerminalLines() override;
  void set_width(std::size_t width);

 protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;
  int sync() override;

 private:
  void emit(const std::string& text);
  void end_line();

  std::streambuf* target_;
  std::size_t width_;
  std::string line_;  // the current line, held until its newline (or the end)
};

// Puts a TerminalLines in front of std::cout's and std::cerr's buffers for the
// life of the object (main's), at kTerminalWidth; narrow(false, ...) lets that
// stream's lines through as they are.
class TerminalWidth {
 public:
  TerminalWidth();
  ~TerminalWidth();
  TerminalWidth(const TerminalWidth&) = delete;
  TerminalWidth& operator=(const TerminalWidth&) = delete;
  void narrow(bool stdout_lines, bool stderr_lines);

 private:
  std::streambuf* cout_target_;
  std::streambuf* cerr_target_;
  TerminalLines cout_lines_;
  TerminalLines cerr_lines_;
};

}  // namespace allocstamp
