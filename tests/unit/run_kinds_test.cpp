// run_kinds_test — a time that allocstamp publishes is the timed runs' alone:
// plant profiled runs ten times slower than the timed ones beside them and
// no time output moves (the ranking, summary.csv, the figures' data, the
// report, bench check), while the memory outputs come from the profiled runs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "analysis/check.h"
#include "output/document.h"
#include "figures/figures.h"
#include "output/ranking.h"
#include "output/report.h"
#include "results/results_folder.h"
#include "results/runs.h"
#include "analysis/summary.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class RunKinds : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("run-kinds-" + std::to_string(::getpid()));
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  // A results folder: two allocators x 1 and 2 threads, 4 timed runs each
  // (times 10..13 ms, jemalloc 20% faster) and 2 profiled runs each whose
  // times are the timed ones x `profiled_slowdown`.
  fs::path folder(const std::string& name, double profiled_slowdown) {
    fs::path dir = root_ / name;
    fs::create_directories(dir);
    std::ofstream meta(dir / "meta.json");
    meta << R"({"schema": 3, "options": {"reps": 4, "profile_reps": 2, "profile": "full"}})";
    meta.close();
    std::ofstream out(dir / "runs.csv");
    out << schema_line("runs.csv") << "\n";
    CsvRow header;
    for (const Column& c : run_columns()) header.push_back(c.name);
    write_row(out, header);
    int id = 0;
    for (int threads : {1, 2})
      for (const std::string allocator : {"glibc", "jemalloc"})
        for (const std::string kind : {"timed", "profiled"})
          for (int rep = 1; rep <= (kind == "timed" ? 4 : 2); ++rep) {
            double ms = (10 + rep - 1) * (allocator == "jemalloc" ? 0.8 : 1.0) / threads;
            if (kind == "profiled") ms *= profiled_slowdown;
            std::map<std::string, std::string> v = {
                {"run_id", std::to_string(++id)}, {"workload", "vacation-low"}, {"app", "vacation-low"},
                {"size", "tiny"}, {"allocator", allocator}, {"tm", "ml_wt"}, {"threads", std::to_string(threads)},
                {"rep", std::to_string(rep)}, {"kind", kind}, {"status", "ok"}, {"exit_code", "0"},
                {"elapsed_ns", std::to_string(long(ms * 1e6))}, {"wall_ns", std::to_string(long(ms * 1.2e6))},
                {"tx_attempts_count", "110"}, {"tx_commits_count", "100"}};
            if (kind == "profiled") {
              v["allocs_seq_count"] = "1000";
              v["heap_requested_peak_bytes"] = allocator == "glibc" ? "2097152" : "3145728";
              v["rss_kb"] = "6144";
              v["pss_kb"] = "5120";
            }
            CsvRow row;
            for (const Column& c : run_columns()) row.push_back(v.count(c.name) ? v[c.name] : "");
            write_row(out, row);
          }
    out.close();
    write_summary(dir);
    return dir;
  }

  // summary.csv's rows of the timed metrics.
  static std::string time_rows(const fs::path& dir) {
    std::string out;
    std::istringstream lines(slurp(dir / "summary.csv"));
    for (std::string line; std::getline(lines, line);)
      if (line.find(",elapsed_ns,") != std::string::npos || line.find(",wall_ns,") != std::string::npos) out += line + "\n";
    return out;
  }

  fs::path root_;
};

TEST_F(RunKinds, AProfiledRunTenTimesSlowerMovesNoTime) {
  fs::path same = folder("same", 1.0), slow = folder("slow", 10.0);

  // summary.csv: the time rows are the timed runs', marked so.
  EXPECT_EQ(time_rows(same), time_rows(slow));
  EXPECT_NE(time_rows(slow).find(",elapsed_ns,timed,4,"), std::string::npos) << time_rows(slow);
  EXPECT_NE(slurp(slow / "summary.csv").find(",heap_requested_peak_bytes,profiled,2,"), std::string::npos);

  // The end-of-sweep ranking.
  std::ostringstream ranking_same, ranking_slow;
  print_ranking(same, ranking_same, true);  // wide: the runs column
  print_ranking(slow, ranking_slow, true);
  EXPECT_EQ(ranking_same.str(), ranking_slow.str());
  EXPECT_TRUE(std::regex_search(ranking_slow.str(), std::regex("glibc +4 timed \\+ 2 profiled +11\\.45 "))) << ranking_slow.str();

  // The figures' data and the report.
  std::map<std::string, std::string> data[2];
  std::string report[2];
  int i = 0;
  for (const fs::path& dir : {same, slow}) {
    ResultsView view = load_results(dir);
    std::vector<CellSummary> cells = summarize_cells(view);
    FigurePlan plan = prepare_figures(view, cells);
    for (const Figure& f : plan.figures) data[i][f.name] = slurp(dir / "figures" / "data" / (f.name + ".dat"));
    report[i] = render_markdown(build_report(view, cells, plan));
    ++i;
  }
  for (const char* figure : {"time-t1", "time-t2", "speedup-vacation-low"}) {
    ASSERT_TRUE(data[1].count(figure)) << figure;
    EXPECT_EQ(data[0][figure], data[1][figure]) << figure;
  }
  std::string table_same = report[0].substr(report[0].find("## Summary")),
              table_slow = report[1].substr(report[1].find("## Summary"));
  EXPECT_EQ(table_same.substr(0, table_same.find("## Figures")), table_slow.substr(0, table_slow.find("## Figures")));
  // The timed runs' 10, 11, 12, 13 ms: a geometric mean of 11.45 ms.
  EXPECT_NE(report[1].find("| 1 | glibc | 4 timed + 2 profiled | 11.45 \\[9.56, 13.70\\] |"), std::string::npos) << report[1];
  EXPECT_NE(report[1].find("From the timed runs (the allocator alone, no memprof), 4 per cell."), std::string::npos);

  // bench check of the two: no time moved.
  CheckResult r = compare_runs(load_runs(same, "baseline"), load_runs(slow, "current"), CheckConfig{});
  int times = 0;
  for (const CheckRow& row : r.rows)
    if (row.metric == "elapsed_ns" || row.metric == "wall_ns") {
      ++times;
      EXPECT_EQ(row.base, row.cur) << row.metric;
      EXPECT_EQ(row.n_cur, 4u) << "the timed runs only";
    }
  EXPECT_GT(times, 0) << "no time was compared: the loop above checked nothing";
}

// A folder written before runs had a kind (schema 2, all profiled) still
// reads: its times are the profiled runs', and outputs say so.
TEST_F(RunKinds, AnOlderFolderIsAllProfiled) {
  fs::path dir = root_ / "old";
  fs::create_directories(dir);
  std::ofstream(dir / "runs.csv") << "# allocstamp runs.csv schema 2\n"
                                  << "run_id,workload,app,size,allocator,tm,threads,rep,status,elapsed_ns,allocs_seq_count\n"
                                  << "1,w,a,tiny,glibc,,1,1,ok,5000000,100\n2,w,a,tiny,glibc,,1,2,ok,7000000,100\n";
  RunsTable t = load_runs(dir, "results");
  EXPECT_EQ(t.kind(t.rows[0]), RunKind::profiled);
  EXPECT_TRUE(t.serves(t.rows[0], "elapsed_ns", false));
  std::ofstream(dir / "meta.json") << R"({"schema": 2, "options": {"profile": "none"}})";
  RunsTable unprofiled = load_runs(dir, "results");
  EXPECT_EQ(unprofiled.kind(unprofiled.rows[0]), RunKind::timed) << "--no-profile: the runs were timed";
  std::ostringstream ranking;
  print_ranking(dir, ranking, true);  // wide: the runs column
  // 5 and 7 ms: a geometric mean of 5.92 ms.
  EXPECT_TRUE(std::regex_search(ranking.str(), std::regex("glibc +2 timed \\+ 0 profiled +5\\.92 "))) << ranking.str();
}

}  // namespace
}  // namespace allocstamp
