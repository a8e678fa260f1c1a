// bottom_line_test — the bottom line (output/bottom_line.h) on the folder
// tests/fixtures/standings, whose every ratio was made by hand (its README):
// the table stars a time or peak-RSS ratio exactly where its interval leaves 1
// out, and each sentence names the fastest and the leanest allocator, which
// differ, and never one whose interval holds 1.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/findings.h"
#include "figures/figures.h"
#include "output/bottom_line.h"

namespace allocstamp {
namespace {

class BottomLine : public ::testing::Test {
 protected:
  void SetUp() override {
    view = load_results(FIXTURE);
    cells = summarize_cells(view);
  }
  ResultsView view;
  std::vector<CellSummary> cells;
};

// A cell is "time / peak RSS" over glibc's, '*' where the interval leaves 1
// out. The fixture's factors (README): two memory ratios that leave 1 out at
// vacation-low (tcmalloc 0.5, jemalloc 0.8), three at intruder, one at genome;
// mimalloc's 0.30 at vacation-low and tcmalloc's and mimalloc's at genome are
// as far from 1 but their repetitions spread over a factor of 25: no star.
TEST_F(BottomLine, StarsTheRatiosWhoseIntervalsLeaveOneAndNoOther) {
  const Block table = bottom_line_table(view, cells);
  const std::vector<std::vector<std::string>> expected = {
      {"workload", "threads", "jemalloc", "tcmalloc", "mimalloc"},
      // The folder's order (the plan's, as the tables and findings go), not the alphabet's.
      {"vacation-low", "1", "0.50* / 0.80*", "0.65* / 0.50*", "0.35 / 0.30"},
      {"vacation-low", "2", "1.05 / 1.02", "0.95 / 0.97", "1.00 / 1.00"},
      {"intruder", "1", "2.00* / 1.30*", "1.50* / 1.60*", "3.00* / 2.00*"},
      {"genome", "1", "2.50* / 1.50*", "0.40 / 1.00", "2.50 / 0.60"},
  };
  ASSERT_EQ(table.rows.size(), expected.size());
  for (std::size_t r = 0; r < expected.size(); ++r)
    for (std::size_t c = 0; c < expected[r].size(); ++c)
      EXPECT_EQ(table.rows[r].at(c), expected[r][c]) << "row " << expected[r][0] << " " << expected[r][1]
                                                      << ", column " << expected[0][c];
}

// Where the fastest (jemalloc, 0.5 of glibc's time) and the leanest (tcmalloc,
// 0.5 of its peak RSS) differ, each is named; mimalloc, lower on both but
// indistinguishable, never is. Every interval a sentence gives is a claim,
// so none of them holds 1.
TEST_F(BottomLine, NamesTheFastestAndTheLeanestWhereTheirIntervalsLeaveOne) {
  const std::vector<std::string> answers = bottom_line_answers(view, cells);
  ASSERT_EQ(answers.size(), 4u);
  auto starts = [](const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; };
  EXPECT_EQ(answers[3], "genome, 1 thread: none ran faster than glibc; 1 of 3 ran slower; none used less memory than "
                        "glibc; 1 of 3 used more.");
  // Every other was slower and heavier: glibc, and the nearest named (tcmalloc 1.5; jemalloc 1.3).
  EXPECT_TRUE(starts(answers[2], "intruder, 1 thread: glibc was the fastest: tcmalloc ran 1.500 [")) << answers[2];
  EXPECT_NE(answers[2].find(" times slower; glibc was the leanest: jemalloc used 1.300 ["), std::string::npos)
      << answers[2];
  EXPECT_TRUE(starts(answers[0], "vacation-low, 1 thread: jemalloc ran 2.000 [")) << "the fastest: " << answers[0];
  EXPECT_NE(answers[0].find(" times faster than glibc; tcmalloc used 0.500 ["), std::string::npos)
      << "the leanest: " << answers[0];
  EXPECT_EQ(answers[0].find("mimalloc"), std::string::npos) << answers[0];
  EXPECT_EQ(answers[1], "vacation-low, 2 threads: no time differs from glibc's; no peak RSS differs from glibc's.");
  const std::regex interval(R"(\[([0-9.]+), ([0-9.]+)\])");
  int intervals = 0;
  for (const std::string& answer : answers)
    for (std::sregex_iterator it(answer.begin(), answer.end(), interval), end; it != end; ++it, ++intervals) {
      const double low = std::strtod((*it)[1].str().c_str(), nullptr), high = std::strtod((*it)[2].str().c_str(), nullptr);
      EXPECT_TRUE(high < 1 || low > 1) << "a claim whose interval holds 1: " << answer;
    }
  EXPECT_EQ(intervals, 4) << "two sentences, each a claim on time and one on memory";
}

// An allocator whose every run crashed has no time and no peak RSS: it is
// named as such, not counted among those that "differ" or not. jemalloc
// crashed at intruder (1 thread) and vacation-low (2 threads): glibc is still
// the fastest of those measured at intruder (once "2 of 3 ran slower", jemalloc
// counted as not slower), and vacation-low's "no difference" names it apart.
TEST(BottomLineCrashed, AnAllocatorWithoutOkRunsIsNamedApart) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("bottom-line-crashed-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(FIXTURE, dir, fs::copy_options::recursive);
  std::ifstream in(dir / "runs.csv");
  std::ostringstream kept;
  int crashed = 0;
  for (std::string line; std::getline(in, line);) {
    const bool intruder_1 = line.find(",intruder,") != std::string::npos && line.find(",ml_wt,1,") != std::string::npos;
    const bool vacation_2 = line.find(",vacation-low,") != std::string::npos && line.find(",ml_wt,2,") != std::string::npos;
    if ((intruder_1 || vacation_2) && line.find(",jemalloc,") != std::string::npos) {
      line = line.substr(0, line.rfind(",timed,ok,")) + ",timed,crashed,,";
      ++crashed;
    }
    kept << line << "\n";
  }
  in.close();
  ASSERT_EQ(crashed, 10);
  std::ofstream(dir / "runs.csv", std::ios::trunc) << kept.str();
  const ResultsView view = load_results(dir);
  const std::vector<CellSummary> cells = summarize_cells(view);
  const std::vector<std::string> answers = bottom_line_answers(view, cells);
  ASSERT_EQ(answers.size(), 4u);
  EXPECT_EQ(answers[1], "vacation-low, 2 threads: no time differs from glibc's (no time for jemalloc: no ok run "
                        "recorded one); no peak RSS differs from glibc's (no peak RSS for jemalloc: no ok run recorded one).");
  EXPECT_EQ(answers[2].rfind("intruder, 1 thread: glibc was the fastest: tcmalloc ran 1.500 [", 0), 0u) << answers[2];
  EXPECT_NE(answers[2].find("times slower (no time for jemalloc: no ok run recorded one); glibc was the leanest: "
                            "tcmalloc used 1.600 ["),
            std::string::npos)
      << answers[2];
  bool named = false;
  for (const std::string& f : findings(view, cells)) {
    EXPECT_EQ(f.find("too few timed runs"), std::string::npos) << f;
    named = named || f.find("no time for jemalloc (no ok run recorded one)") != std::string::npos;
  }
  EXPECT_TRUE(named) << "the findings name it too";
  fs::remove_all(dir);
}

// With one timed run a cell no ratio has an interval, so nothing was compared:
// that is said, not "no time differs" (summarize of CI's baseline, one run a
// cell, said so of churn at 1.52 times glibc's time).
TEST(BottomLineOneRun, NothingComparedIsNotNoDifference) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("bottom-line-one-run-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(FIXTURE, dir, fs::copy_options::recursive);
  std::ifstream in(dir / "runs.csv");
  std::ostringstream kept;
  for (std::string line; std::getline(in, line);)
    if (line.find(",timed,") == std::string::npos || line.find(",1,timed,") != std::string::npos) kept << line << "\n";
  in.close();
  std::ofstream(dir / "runs.csv", std::ios::trunc) << kept.str();
  const ResultsView view = load_results(dir);
  const std::vector<CellSummary> cells = summarize_cells(view);
  const std::vector<std::string> answers = bottom_line_answers(view, cells);
  ASSERT_EQ(answers.size(), 4u);
  for (const std::string& answer : answers) {
    EXPECT_NE(answer.find(": too few timed runs to compare times (use --reps 3 or more); too few runs to compare peak "
                          "RSS (use --reps 3 or more)."),
              std::string::npos)
        << answer;
    EXPECT_EQ(answer.find("differs"), std::string::npos) << answer;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace allocstamp
