// widths_e2e_test — every verb's typical command, through the real binary,
// prints no line wider than the terminal's 120 columns (characters, not bytes):
// help, --list, the dry run of a preset with long command lines, a misspelled
// name, summarize, check and plot of the fixture folder. What is for a program
// is not wrapped: check's CSV on stdout; --wide lets a table's long lines through.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "output/terminal_lines.h"
#include "run_command.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;

struct Widest {
  std::size_t columns = 0;
  std::string line;
};

// The widest line, but for a word longer than a line, which stands alone on
// its own (a long library path; in a command, with its " \\").
Widest widest(const std::string& text) {
  Widest w;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::string word = line.substr(std::min(line.size(), line.find_first_not_of(' ')));
    if (word.size() >= 2 && word.substr(word.size() - 2) == " \\") word.resize(word.size() - 2);
    if (word.find(' ') == std::string::npos) continue;
    if (display_width(line) > w.columns) w = {display_width(line), line};
  }
  return w;
}

std::size_t longest_line(const std::string& text) {
  std::size_t longest = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) longest = std::max(longest, display_width(line));
  return longest;
}

class Widths : public ::testing::Test {
 protected:
  void SetUp() override {
    root = fs::temp_directory_path() / ("widths-e2e-" + std::to_string(getpid()));
    fs::remove_all(root);
    fs::create_directories(root);
    fs::copy(FIXTURE, root / "a", fs::copy_options::recursive);
    fs::copy(FIXTURE, root / "b", fs::copy_options::recursive);
  }
  void TearDown() override { fs::remove_all(root); }

  testing::CommandResult bench(std::vector<std::string> args) {
    args.insert(args.begin(), BENCH_BINARY);
    testing::CommandOptions options;
    options.env = {"COLUMNS=300"};  // bench's width is its own, not the caller's terminal's
    return testing::run_command(args, options);
  }

  fs::path root;
};

TEST_F(Widths, EveryVerbsTypicalCommandFits120Columns) {
  const std::string a = (root / "a").string(), b = (root / "b").string();
  std::vector<std::vector<std::string>> commands = {
      {"--help"}, {"summarize", "--help"}, {"plot", "--help"}, {"check", "--help"}, {"merge", "--help"},
      {"slurm", "--help"}, {"trace", "--help"}, {"trace", "record", "--help"}, {"trace", "replay", "--help"},
      {"trace", "stats", "--help"}, {"overhead", "--help"}, {"--list"},
      {"--alloc=variants", "--workload=churn", "--dry-run"},  // a variant's settings before each command
      {"--preset=real", "--dry-run"},                         // redis-server's and its client's long command lines
      {"--workload=vacaton", "--dry-run"},                    // refused: every name it could have meant
      {"summarize", a}, {"check", a, b}, {"check", a, b, "--all"}, {"merge", root.string() + "/m", a, b}};
  if (std::system("command -v gnuplot >/dev/null 2>&1") == 0) commands.push_back({"plot", b});
  for (const auto& args : commands) {
    const auto r = bench(args);
    std::string shown;
    for (const auto& w : args) shown += " " + w;
    EXPECT_NE(r.exit_code, -1) << shown;
    EXPECT_GT(r.out.size() + r.err.size(), 0u) << "bench" << shown << " printed nothing";
    const Widest out = widest(r.out), err = widest(r.err);
    EXPECT_LE(out.columns, 120u) << "bench" << shown << " on stdout:\n" << out.line;
    EXPECT_LE(err.columns, 120u) << "bench" << shown << " on stderr:\n" << err.line;
  }
}

TEST_F(Widths, WhatIsForAProgramIsNotWrapped) {
  const auto csv = bench({"check", (root / "a").string(), (root / "b").string(), "--csv", "-"});
  ASSERT_FALSE(csv.out.empty()) << csv.err;
  std::istringstream in(csv.out);
  std::string header;
  while (std::getline(in, header) && header.rfind("#", 0) == 0) {
  }
  const auto fields = [](const std::string& line) {  // commas outside quotes
    std::size_t n = 1;
    bool quoted = false;
    for (char c : line) quoted ^= c == '"', n += !quoted && c == ',';
    return n;
  };
  std::size_t rows = 0;
  for (std::string line; std::getline(in, line); ++rows)
    if (line.rfind("#", 0) != 0) {
      EXPECT_EQ(fields(line), fields(header)) << "a CSV row cut into lines:\n" << line;
    }
  EXPECT_GT(rows, 0u);
  EXPECT_GT(longest_line(csv.out), 120u) << "the fixture's CSV rows are long: this test would not see a wrap";
  EXPECT_LE(widest(csv.err).columns, 120u) << "the notes on stderr are for a person:\n" << widest(csv.err).line;

  const auto wide = bench({"summarize", (root / "a").string(), "--wide"});
  EXPECT_GT(longest_line(wide.out + wide.err), 120u) << "--wide prints every column, on lines as long as they are";
}

}  // namespace
}  // namespace allocstamp
