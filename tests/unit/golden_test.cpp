// golden_test — every renderer of the output model against an expected file
// (tests/expected/): the report of the fixture folder (Markdown, HTML), the
// ranking (text), `bench check`'s table (text) and CSV on the fixture against
// a copy with a planted change, and --columns (Markdown). A failing test
// prints the difference's first line; scripts/update-golden rewrites the
// expected files and prints their difference (never under CI=true).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "analysis/check.h"
#include "output/check_report.h"
#include "commands/commands.h"
#include "output/document.h"
#include "figures/figures.h"
#include "output/ranking.h"
#include "output/report.h"
#include "results/results_folder.h"
#include "run_command.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;

using testing::slurp;

// Compares `actual` with tests/expected/<name>, or rewrites it when asked.
// ALLOCSTAMP_EXPECTED_DIR points elsewhere (golden_update_refused_in_ci: a
// scratch copy it checks is left untouched).
void expect_golden(const std::string& name, const std::string& actual) {
  const char* elsewhere = std::getenv("ALLOCSTAMP_EXPECTED_DIR");
  const fs::path file = fs::path(elsewhere ? elsewhere : EXPECTED_DIR) / name;
  if (std::getenv("ALLOCSTAMP_UPDATE_GOLDEN")) {
    // Never under CI=true: there a changed output must fail, not become the expectation.
    ASSERT_FALSE(testing::in_ci()) << "ALLOCSTAMP_UPDATE_GOLDEN is refused under CI=true";
    std::ofstream(file, std::ios::trunc) << actual;
    return;
  }
  ASSERT_TRUE(fs::exists(file)) << file << " is missing: scripts/update-golden writes it";
  const std::string expected = slurp(file);
  if (expected == actual) return;
  std::istringstream a(actual), e(expected);
  std::string la, le;
  int line = 1;
  while (std::getline(a, la) && std::getline(e, le) && la == le) ++line;
  ADD_FAILURE() << name << " differs from " << file << " at line " << line << ":\n  expected: " << le
                << "\n  actual:   " << la << "\n(scripts/update-golden rewrites it and shows the difference)";
}

class Golden : public ::testing::Test {
 protected:
  void SetUp() override {
    // The folder's name is in the report's title: the same every time.
    scratch = fs::temp_directory_path() / ("golden-test-" + std::to_string(::getpid()) + "-" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(scratch);
    dir = scratch / "fixture";
    fs::create_directories(scratch);
    fs::copy(FIXTURE, dir, fs::copy_options::recursive);
  }
  void TearDown() override { fs::remove_all(scratch); }
  fs::path scratch, dir;
};

TEST_F(Golden, ReportInMarkdownAndHtml) {
  ResultsView view = load_results(dir);
  auto cells = summarize_cells(view);
  FigurePlan plan = prepare_figures(view, cells);
  Document doc = build_report(view, cells, plan);
  // The folder's path changes from run to run: the expected files say RESULTS.
  auto stable = [&](std::string text) { return std::regex_replace(text, std::regex(dir.string()), "RESULTS"); };
  expect_golden("report.md", stable(render_markdown(doc)));
  expect_golden("report.html", stable(render_html(doc)));
}

TEST_F(Golden, RankingAsText) {
  std::ostringstream out;
  print_ranking(dir, out);
  // The folder's path (in the failed runs' redo command) changes from run to run.
  expect_golden("ranking.txt", std::regex_replace(out.str(), std::regex(dir.string()), "RESULTS"));
}

TEST_F(Golden, CheckTableAndCsv) {
  // The current side: vacation-low's jemalloc runs 30% slower and allocating
  // 10% more; one baseline cell gone.
  fs::path current = dir / "current";
  fs::create_directories(current);
  std::string runs = slurp(dir / "runs.csv");
  std::ostringstream edited;
  std::istringstream lines(runs);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find("maps-insert-absl_btree_map") != std::string::npos) continue;
    edited << line << '\n';
  }
  std::ofstream(current / "runs.csv") << edited.str();
  RunsTable base = load_runs(dir / "runs.csv", "baseline"), cur = load_runs(current / "runs.csv", "current");
  for (CsvRow& row : cur.rows) {
    if (cur.text(row, "workload") != "vacation-low" || cur.text(row, "allocator") != "jemalloc") continue;
    for (const char* name : {"elapsed_ns", "allocs_seq_count"}) {
      std::size_t i = cur.column(name);
      double v = std::strtod(row[i].c_str(), nullptr) * (std::string(name) == "elapsed_ns" ? 1.3 : 1.1);
      row[i] = std::to_string(static_cast<long long>(v));
    }
  }
  CheckConfig config;
  CheckResult result = compare_runs(base, cur, config);
  std::ostringstream table, csv;
  print_check_table(result, false, table);
  table << check_verdict_line(result, config) << '\n';
  write_check_csv(result, csv);
  expect_golden("check.txt", table.str());
  expect_golden("check.csv", csv.str());
}

TEST_F(Golden, ColumnsAsMarkdown) {
  std::ostringstream md;
  command_columns(md);
  expect_golden("columns.md", md.str());
  const Block columns = columns_table();
  expect_golden("columns.html", render_html({heading(1, "runs.csv"), columns}));
  expect_golden("columns.txt", render_text({columns}));
}

}  // namespace
}  // namespace allocstamp
