// progress_test — the sweep's ETA: each run still to make counts the seconds
// runs of its shape took before (workloads/run-seconds.csv), scaled by this
// sweep's pace against them; runs the table does not know count the mean of
// this sweep's such runs; a workload's precision rounds count until they end.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "model/errors.h"
#include "output/progress.h"
#include "results/run_seconds.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;

Run run_of(int id, const std::string& workload, const std::string& allocator, RunKind kind = RunKind::timed) {
  Run run;
  run.id = id;
  run.workload.name = workload;
  run.allocator.name = allocator;
  run.size = "small";
  run.threads = 1;
  run.kind = kind;
  return run;
}

class RunSecondsFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("progress-test-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  RunSeconds table(const std::string& rows) {
    std::ofstream(dir_ / "run-seconds.csv") << "# allocstamp run-seconds.csv schema 8\n"
                                               "workload,size,kind,threads,allocator,seconds\n"
                                            << rows;
    return RunSeconds::load(dir_ / "run-seconds.csv");
  }
  fs::path dir_;
};

TEST_F(RunSecondsFile, EachShapeAndEachWorkloadsRoundsAreRead) {
  const RunSeconds seconds = table("churn,small,timed,1,glibc,0.5\nchurn,small,profiled,1,glibc,0.75\n"
                                   "churn,,rounds,,,3\n");
  EXPECT_DOUBLE_EQ(seconds.expected(run_of(1, "churn", "glibc")), 0.5);
  EXPECT_DOUBLE_EQ(seconds.expected(run_of(1, "churn", "glibc", RunKind::profiled)), 0.75);
  EXPECT_DOUBLE_EQ(seconds.expected(run_of(1, "churn", "jemalloc")), 0) << "another allocator's shape is not known";
  allocstamp::Run two_threads = run_of(1, "churn", "glibc");
  two_threads.threads = 2;
  EXPECT_DOUBLE_EQ(seconds.expected(two_threads), 0);
  EXPECT_DOUBLE_EQ(seconds.rounds("churn"), 3);
  EXPECT_DOUBLE_EQ(seconds.rounds("vacation-low"), 0);
}

TEST_F(RunSecondsFile, NoFileKnowsNothingAndADamagedOneIsRefused) {
  EXPECT_TRUE(RunSeconds::load(dir_ / "none.csv").empty());
  EXPECT_THROW(table("churn,small,timed,1,glibc,-1\n"), UsageError);
  EXPECT_THROW(table("churn,small,timed,1,glibc,soon\n"), UsageError);
  std::ofstream(dir_ / "other.csv") << "# allocstamp run-seconds.csv schema 8\nworkload,seconds\nchurn,1\n";
  EXPECT_THROW(RunSeconds::load(dir_ / "other.csv"), UsageError);
}

TEST_F(RunSecondsFile, TheEtaCountsTheTableFromTheFirstRunAtThisSweepsPace) {
  const RunSeconds seconds = table("churn,small,timed,1,glibc,100\nlua,small,timed,1,glibc,1000\n");
  const std::vector<allocstamp::Run> runs = {run_of(1, "churn", "glibc"), run_of(2, "churn", "glibc"), run_of(3, "lua", "glibc"),
                                 run_of(4, "lua", "glibc")};
  Progress progress(runs, seconds, false);
  EXPECT_DOUBLE_EQ(progress.seconds_left(), 2200) << "before any run: the table's seconds as they are";
  // This sweep's pace, the table's weighing as a minute of runs at its own seconds.
  auto pace = [](double took, double expected) {
    return (took + kTableWeightSeconds) / (expected + kTableWeightSeconds);
  };
  progress.finished(runs[0], "ok", 200);  // twice as slow as the table
  EXPECT_DOUBLE_EQ(progress.seconds_left(), pace(200, 100) * 2100);
  EXPECT_GT(progress.seconds_left(), 1.5 * 2100) << "a slower machine: a longer ETA";
  progress.finished(runs[1], "ok", 200);
  EXPECT_DOUBLE_EQ(progress.seconds_left(), pace(400, 200) * 2000) << "lua's long runs still to come count as long";
  progress.finished(runs[2], "ok", 500);  // now faster than the table: 900 s against its 1,200
  EXPECT_DOUBLE_EQ(progress.seconds_left(), pace(900, 1200) * 1000);
  EXPECT_LT(progress.seconds_left(), 1000);
}

TEST_F(RunSecondsFile, RunsTheTableDoesNotKnowCountTheMeanOfTheirKind) {
  const RunSeconds seconds = table("churn,small,timed,1,glibc,1\n");
  const std::vector<allocstamp::Run> runs = {run_of(1, "mine", "glibc"), run_of(2, "mine", "glibc"), run_of(3, "churn", "glibc")};
  Progress progress(runs, seconds, false);
  EXPECT_LT(progress.seconds_left(), 0) << "nothing known of 'mine' before one of its runs ends: '?'";
  progress.finished(runs[0], "ok", 4);
  EXPECT_DOUBLE_EQ(progress.seconds_left(), 4 + 1);
  progress.finished(runs[1], "ok", 6);
  EXPECT_DOUBLE_EQ(progress.seconds_left(), 1);
}

TEST_F(RunSecondsFile, AWorkloadsPrecisionRoundsCountUntilTheyEnd) {
  const RunSeconds seconds = table("churn,small,timed,1,glibc,10\nchurn,,rounds,,,60\n");
  const std::vector<allocstamp::Run> runs = {run_of(1, "churn", "glibc"), run_of(2, "churn", "glibc")};
  EXPECT_DOUBLE_EQ(Progress(runs, seconds, false).seconds_left(), 20) << "no --precision: no rounds";
  Progress progress(runs, seconds, true);
  EXPECT_DOUBLE_EQ(progress.seconds_left(), 20 + 60);
  progress.finished(runs[0], "ok", 10);
  progress.finished(runs[1], "ok", 10);
  EXPECT_DOUBLE_EQ(progress.seconds_left(), 60);
  progress.extend(1);
  progress.finished(run_of(3, "churn", "glibc"), "ok", 30);  // a round's run: not the plan's
  EXPECT_DOUBLE_EQ(progress.seconds_left(), 60) << "its rounds are not over yet";
  progress.workload_done("churn");
  EXPECT_DOUBLE_EQ(progress.seconds_left(), 0);
}

}  // namespace
}  // namespace allocstamp
