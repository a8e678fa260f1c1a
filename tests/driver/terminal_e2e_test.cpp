// terminal_e2e_test — what the terminal shows after a sweep: the mission's
// command (README: `./bench --alloc=tcmalloc,jemalloc --workload=vacation`,
// here at --size tiny) prints nothing wider than 120 characters, ends with the
// bottom line across workloads and a sentence per row, and folds its warnings
// into one line per kind; `bench summarize --wide` gives every column.
#include <gtest/gtest.h>

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
  const testing::CommandResult r = bench({"--alloc=tcmalloc,jemalloc", "--workload=vacation", "--size=tiny", "--reps=3",
                                          "--threads=1,2", "--no-plot", "--out=" + out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
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
  // --wide: every column, wider than 120.
  const testing::CommandResult wide = bench({"summarize", "--wide", out.string()});
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  EXPECT_FALSE(lines_wider_than(wide.out, 120).empty()) << wide.out;
  EXPECT_NE(wide.out.find("heap peak (MiB)"), std::string::npos) << wide.out;
}

}  // namespace
}  // namespace allocstamp
