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
#include "analysis/summary.h"
#include "results/csv.h"
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

// The report's findings name the best first: at vacation-low (1 thread)
// jemalloc (0.5) and tcmalloc (0.65) both ran faster, tcmalloc (0.5) and
// jemalloc (0.8) both used less memory; the fastest and the leanest are the
// farthest from 1, the others follow as "also".
TEST_F(BottomLine, FindingsNameTheFastestAndTheLeanestFirst) {
  std::string said;
  for (const std::string& f : findings(view, cells)) said += f + "\n";
  EXPECT_NE(said.find("fastest jemalloc, 0.500x ["), std::string::npos) << said;
  EXPECT_NE(said.find("also faster than glibc: tcmalloc"), std::string::npos) << said;
  EXPECT_NE(said.find("leanest tcmalloc, 0.500x ["), std::string::npos) << said;
  EXPECT_NE(said.find("also leaner than glibc: jemalloc"), std::string::npos) << said;
}

// summary.csv's adjusted interval is the one the tables show and the
// standing is decided on: its family's (12 comparisons here, so wider than
// the ratio's own 95%), not the 95% one beside it.
TEST(BottomLineSummaryCsv, TheAdjustedIntervalIsTheFamilysAsTheTablesShow) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("bottom-line-summary-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(FIXTURE, dir, fs::copy_options::recursive);
  const ResultsView view = load_results(dir);
  const std::vector<CellSummary> cells = summarize_cells(view);
  CsvRow header;
  const std::vector<CsvRow> rows = read_csv(write_summary(view, cells), &header);
  fs::remove_all(dir);
  auto at = [&](const CsvRow& row, const std::string& name) {
    return row.at(std::size_t(std::find(header.begin(), header.end(), name) - header.begin()));
  };
  int checked = 0;
  for (const CellSummary& c : cells) {
    if (c.allocator != "jemalloc" || c.group != "vacation-low" || c.threads != 1) continue;
    for (const CsvRow& row : rows) {
      if (at(row, "allocator") != "jemalloc" || at(row, "workload") != "vacation-low" || at(row, "threads") != "1") continue;
      const bool time = at(row, "metric") == c.cell->time_key, memory = at(row, "metric") == "maxrss_kb";
      if (!time && !memory) continue;
      const stats::Ratio& shown = time ? c.time_vs_reference : c.memory_vs_reference;
      const stats::Ratio& own = time ? c.time_vs_reference_95 : c.memory_vs_reference_95;
      ASSERT_GT(shown.level, 0.95) << "a family of one would not tell the two apart";
      EXPECT_NEAR(std::stod(at(row, "vs_reference_adjusted_level")), shown.level, 1e-6);
      EXPECT_NEAR(std::stod(at(row, "vs_reference_adjusted_low")), shown.ci_low, 1e-6);
      EXPECT_NEAR(std::stod(at(row, "vs_reference_adjusted_high")), shown.ci_high, 1e-6);
      EXPECT_LT(std::stod(at(row, "vs_reference_adjusted_low")), own.ci_low) << "wider than the 95% interval";
      ++checked;
    }
  }
  EXPECT_EQ(checked, 2) << "jemalloc's time and peak RSS at vacation-low, 1 thread";
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
