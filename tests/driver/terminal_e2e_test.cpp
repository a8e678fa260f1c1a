// terminal_e2e_test — what the terminal shows after a sweep: the mission's
// command (README: `./bench --alloc=tcmalloc,jemalloc --workload=vacation`,
// here at --size tiny) prints nothing wider than 120 characters (its figures'
// lines included), ends with the
// bottom line across workloads and a sentence per row, and folds its warnings
// into one line per kind; `bench summarize --wide` gives every column. A sweep
// of several workloads prints each workload's table as soon as its runs (and
// its --precision rounds) are done, before the next workload's first run.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "run_command.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;

// Characters, not bytes: '±' and '—' are one each.
std::size_t characters(const std::string& line) {
  std::size_t n = 0;
  for (unsigned char c : line) n += (c & 0xC0) != 0x80;
  return n;
}

std::vector<std::string> lines_wider_than(const std::string& text, std::size_t width) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (characters(line) > width) out.push_back(line);
  return out;
}

testing::CommandResult bench(std::vector<std::string> args) {
  args.insert(args.begin(), BENCH_BINARY);
  testing::CommandOptions options;
  options.drop_prefixes = {"ALLOCSTAMP_"};
  return testing::run_command(args, options);
}

TEST(Terminal, TheMissionCommandFits120ColumnsAndEndsWithTheBottomLine) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  for (const char* lib : {"/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4", "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"})
    SKIP_UNLESS_INSTALLED(fs::exists(lib), lib);
  testing::ScratchDir dir{"terminal-e2e"};
  const fs::path out = dir / "mission";
  // With the figures, as the mission command draws them (install-deps installs gnuplot).
  SKIP_UNLESS_INSTALLED(fs::exists("/usr/bin/gnuplot"), "gnuplot");
  const testing::CommandResult r = bench({"--alloc=tcmalloc,jemalloc", "--workload=vacation", "--size=tiny", "--reps=3",
                                          "--threads=1,2", "--out=" + out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The last screen of a 120x50 terminal (stdout; progress on stderr is
  // overwritten in place) holds the bottom line's table and every sentence;
  // the figures are one line, each figure's own in logs/plot.log.
  {
    std::vector<std::string> lines;
    std::istringstream text(r.out);
    for (std::string line; std::getline(text, line);) lines.push_back(line);
    std::string last_screen;
    for (std::size_t i = lines.size() > 50 ? lines.size() - 50 : 0; i < lines.size(); ++i) last_screen += lines[i] + "\n";
    EXPECT_NE(last_screen.find("bottom line: time / peak RSS over tcmalloc"), std::string::npos) << last_screen;
    EXPECT_NE(last_screen.find("\nvacation-low, 2 threads: "), std::string::npos) << last_screen;
    EXPECT_NE(last_screen.find("\nfigures: " + (out / "report.html").string()), std::string::npos) << last_screen;
    EXPECT_EQ(r.out.find("drew "), std::string::npos) << "each figure's line goes to logs/plot.log:\n" << r.out;
    EXPECT_NE(testing::slurp(out / "logs" / "plot.log").find("drew    figures/time-t1.png"), std::string::npos);
  }
  for (const std::string& line : lines_wider_than(r.out + r.err, 120)) ADD_FAILURE() << characters(line) << ": " << line;
  // The bottom line: a row per workload and thread count, a column per allocator but the reference.
  const auto bottom = r.out.find("bottom line: time / peak RSS over tcmalloc\n  workload       threads");
  ASSERT_NE(bottom, std::string::npos) << r.out;
  for (const char* row : {"\n  vacation-high  1  ", "\n  vacation-high  2  ", "\n  vacation-low   1  ", "\n  vacation-low   2  "})
    EXPECT_NE(r.out.find(row, bottom), std::string::npos) << row << " in:\n" << r.out;
  // A sentence per row, in hyperfine's words.
  for (const char* answer : {"\nvacation-high, 1 thread: ", "\nvacation-high, 2 threads: ", "\nvacation-low, 1 thread: ",
                             "\nvacation-low, 2 threads: "})
    EXPECT_NE(r.out.find(answer, bottom), std::string::npos) << answer << " in:\n" << r.out;
  // Warnings, if any, one line per kind with a count, not one per cell.
  EXPECT_EQ(r.out.find("    warning: "), std::string::npos) << r.out;
  // The figures' lines too (the mission's command draws them; bench plot here).
  const testing::CommandResult plot = bench({"plot", out.string()});
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  EXPECT_NE(plot.out.find("drew    figures/time-t1.png"), std::string::npos) << plot.out;
  for (const std::string& line : lines_wider_than(plot.out + plot.err, 120)) ADD_FAILURE() << characters(line) << ": " << line;
  // --wide: every column, wider than 120.
  const testing::CommandResult wide = bench({"summarize", "--wide", out.string()});
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  EXPECT_FALSE(lines_wider_than(wide.out, 120).empty()) << wide.out;
  EXPECT_NE(wide.out.find("heap peak (MiB)"), std::string::npos) << wide.out;
}

// Progress (stderr) and tables (stdout) in one stream, in the order printed.
TEST(Terminal, EachWorkloadsTableComesAsSoonAsItsRunsAreDone) {
  testing::ScratchDir dir{"terminal-early"};
  const std::string command = std::string(BENCH_BINARY) +
                              " --alloc=glibc,jemalloc --workload=test-steady,test-alloc --size=tiny --reps=2 "
                              "--threads=1 --no-profile --no-plot --precision=50 --max-reps=3 --out=" +
                              (dir / "early").string() + " 2>&1";
  testing::CommandOptions options;
  options.drop_prefixes = {"ALLOCSTAMP_"};
  options.env = {"ALLOCSTAMP_WORKLOADS=" + std::string(TEST_WORKLOADS)};
  const testing::CommandResult r = testing::run_command({"/bin/sh", "-c", command}, options);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const std::string& o = r.out;
  const auto steady_table = o.find("\ntest-steady (size tiny)\n");
  const auto alloc_table = o.find("\ntest-alloc (size tiny)\n");
  ASSERT_NE(steady_table, std::string::npos) << o;
  ASSERT_NE(alloc_table, std::string::npos) << o;
  EXPECT_EQ(o.find("\ntest-steady (size tiny)\n", steady_table + 1), std::string::npos) << "printed once:\n" << o;
  const auto last_steady_run = o.rfind("] test-steady ");
  const auto first_alloc_run = o.find("] test-alloc ");
  // Its precision rounds' last word: within ±50%, or (on a loaded machine, at --max-reps 3) short of it.
  auto steady_precise = o.find("precision: every cell group of test-steady within ±50%");
  if (steady_precise == std::string::npos) steady_precise = o.find("cell group(s) of test-steady short of ±50%");
  ASSERT_NE(last_steady_run, std::string::npos) << o;
  ASSERT_NE(first_alloc_run, std::string::npos) << o;
  ASSERT_NE(steady_precise, std::string::npos) << o;
  EXPECT_LT(last_steady_run, steady_precise) << o;
  EXPECT_LT(steady_precise, steady_table) << "its precision rounds come before its table:\n" << o;
  EXPECT_LT(steady_table, first_alloc_run) << "the first table before the second workload runs:\n" << o;
  EXPECT_LT(o.rfind("] test-alloc "), alloc_table) << o;
  EXPECT_LT(alloc_table, o.find("bottom line: time / peak RSS over glibc")) << o;
  // One value per cell: the streamed table gives the ratio without the
  // interval or standing that its family's level (all the sweep's
  // comparisons) sets; the bottom line gives the same ratio, starred or not,
  // and bench summarize the same with its final interval.
  auto words_of_line = [](const std::string& text, std::size_t from, const std::string& start) {
    const auto at = text.find(start, from);
    std::istringstream line(at == std::string::npos ? "" : text.substr(at, text.find('\n', at + 1) - at));
    std::vector<std::string> words;
    for (std::string w; line >> w;) words.push_back(w);
    return words;
  };
  const auto streamed = words_of_line(o, steady_table, "  1        jemalloc ");
  ASSERT_EQ(streamed.size(), 8u) << o;
  EXPECT_EQ(streamed[4], "later") << "no standing before the bottom line:\n" << o;
  EXPECT_EQ(streamed[7], "later") << o;
  EXPECT_NE(o.find("vs glibc [CI later]", steady_table), std::string::npos) << o;
  const auto bottom = words_of_line(o, o.find("bottom line: time / peak RSS over glibc"), "\n  test-steady  1 ");
  ASSERT_EQ(bottom.size(), 5u) << o;
  std::string time_mark = bottom[2], memory_mark = bottom[4];
  for (std::string* mark : {&time_mark, &memory_mark})
    if (!mark->empty() && mark->back() == '*') mark->pop_back();
  // The same ratio, shown to 3 places and to 2: rounding the shown 3 places
  // again may differ from the bottom line's by one in the last place (1.315
  // shown, 1.3152 behind it, 1.32 in the bottom line), never by more than the
  // two roundings together (0.0005 + 0.005).
  EXPECT_NEAR(std::stod(streamed[3]), std::stod(time_mark), 0.0055)
      << "the streamed time ratio is the bottom line's:\n" << o;
  EXPECT_NEAR(std::stod(streamed[6]), std::stod(memory_mark), 0.0055)
      << "the streamed memory ratio is the bottom line's:\n" << o;
  const testing::CommandResult summarized =
      testing::run_command({BENCH_BINARY, "summarize", (dir / "early").string()}, options);
  ASSERT_EQ(summarized.exit_code, 0) << summarized.err;
  const auto final_row = words_of_line(summarized.out, summarized.out.find("\ntest-steady (size tiny)\n"),
                                       "  1        jemalloc ");
  ASSERT_GE(final_row.size(), 4u) << summarized.out;
  EXPECT_EQ(final_row[3], streamed[3]) << "bench summarize's ratio is the streamed one:\n" << summarized.out;
  EXPECT_EQ(summarized.out.find("[CI later]"), std::string::npos) << "at the end: the intervals";
}

}  // namespace
}  // namespace allocstamp
