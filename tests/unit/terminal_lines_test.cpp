// The terminal's 120 columns (output/terminal_lines.h): a long line wrapped at
// its words under its text column, short lines and CSV untouched, widths by
// characters, not bytes.
#include "output/terminal_lines.h"

#include <gtest/gtest.h>

#include <ostream>
#include <sstream>

#include "model/shell_words.h"

namespace allocstamp {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string words_of(const std::string& text) {
  std::istringstream in(text);
  std::string all;
  for (std::string w; in >> w;) all += w + " ";
  return all;
}

TEST(TerminalLines, AnOptionsDescriptionContinuesUnderItself) {
  const std::string line = "  --budget FLOAT            With --precision: add no repetition round to the k-th of N "
                           "workloads once the sweep has run k/N of this many minutes (each workload its share)";
  const auto lines = lines_of(wrap_line(line, 60));
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines[0], "  --budget FLOAT            With --precision: add no");
  for (std::size_t i = 1; i < lines.size(); ++i) {
    EXPECT_LE(display_width(lines[i]), 60u) << lines[i];
    EXPECT_EQ(lines[i].find_first_not_of(' '), 28u) << "under the description: " << lines[i];
  }
  EXPECT_EQ(words_of(wrap_line(line, 60)), words_of(line)) << "every word kept, none cut";
}

TEST(TerminalLines, ProseHangsTwoPastItsIndentationAndALongWordStandsAlone) {
  const std::string path(150, 'p');
  const auto lines = lines_of(wrap_line("error: " + path + " is not a folder — give one", 120));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "error:");
  EXPECT_EQ(lines[1], "  " + path);
  EXPECT_EQ(lines[2], "  is not a folder — give one");
  EXPECT_EQ(hanging_indent("    - an item"), 6u);
}

TEST(TerminalLines, WidthCountsCharactersNotBytesNorEscapes) {
  EXPECT_EQ(display_width("±20% — ×3"), 9u);
  EXPECT_EQ(display_width("\033[1mbold\033[0m"), 4u);
  EXPECT_EQ(display_width("a\tb"), 9u);
  const std::string dashes = [] { std::string s; for (int i = 0; i < 120; ++i) s += "—"; return s; }();
  EXPECT_EQ(wrap_line(dashes, 120), dashes + "\n") << "120 characters of 3 bytes each fit";
}

TEST(TerminalLines, TheStreamWrapsLongLinesAndPassesShortOnesAsTheyAre) {
  std::ostringstream target;
  TerminalLines lines(target.rdbuf(), 40);
  std::ostream out(&lines);
  out << "short  line\n" << "a b c d e f g h i j k l m n o p q r s t u v w x y z";
  out.flush();
  EXPECT_EQ(target.str(), "short  line\n") << "a line is held until it ends";
  out << " end\n";
  for (const auto& line : lines_of(target.str())) EXPECT_LE(line.size(), 40u) << line;
  EXPECT_EQ(words_of(target.str()), words_of("short line a b c d e f g h i j k l m n o p q r s t u v w x y z end"));
  lines.set_width(0);
  const std::string csv(300, 'x');
  out << csv << "\n";
  EXPECT_NE(target.str().find(csv + "\n"), std::string::npos) << "width 0 passes a line through whole";
}

TEST(TerminalLines, ACommandInLinesIsOneCommandToTheShell) {
  std::vector<std::string> words{"LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "/usr/bin/redis-server"};
  for (int i = 0; i < 12; ++i) words.push_back("--option-" + std::to_string(i));
  words.push_back("");
  const std::string text = shell_lines(words, 60, 4);
  const auto lines = lines_of(text);
  ASSERT_GE(lines.size(), 3u);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    EXPECT_LE(lines[i].size(), 60u) << lines[i];
    EXPECT_EQ(lines[i].size() >= 2 && lines[i].substr(lines[i].size() - 2) == " \\", i + 1 < lines.size()) << lines[i];
    EXPECT_EQ(lines[i].find_first_not_of(' '), i == 0 ? 4u : 6u) << lines[i];
  }
  EXPECT_EQ(lines.back().substr(lines.back().size() - 3), " ''") << "an empty word quoted";
}

}  // namespace
}  // namespace allocstamp
