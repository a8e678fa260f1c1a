// long_run_e2e_test — what a long profiled run makes must not break its own
// folder (issue 60): memprof's load of 24 GiB held for a day of the program's
// own clock (2.2e24 byte·ns, past 2^64) is written and read back; a value
// outside its column's type fails its run, names the column, and the sweep
// goes on to its end, lists the run with why, and --resume --redo-failed
// makes it again.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "key_names.h"
#include "results/runs.h"
#include "run_command.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;
using Result = testing::CommandResult;

Result bench(std::vector<std::string> args) {
  args.insert(args.begin(), BENCH_BINARY);
  testing::CommandOptions options;
  options.env = {"ALLOCSTAMP_WORKLOADS=" + std::string(TEST_WORKLOADS), "ALLOCSTAMP_NO_PLOT=1"};
  options.timeout_seconds = 120;
  return testing::run_command(args, options);
}

const CsvRow* row_of(const RunsTable& t, const std::string& workload, const std::string& kind) {
  for (const CsvRow& row : t.rows)
    if (t.text(row, keys::workload) == workload && t.text(row, keys::kind) == kind) return &row;
  return nullptr;
}

// 24 blocks of 1 GiB held for 24 hours of the program's clock before the
// measured phase and through a phase of 24 hours (tests/workloads/day_clock.cpp;
// memprof reads that clock too): the load is the phase's alone.
TEST(DayClock, ALoadPast2To64IsReadBackAsWritten) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  testing::ScratchDir scratch("day-clock");
  const fs::path out = scratch.path() / "day";
  const Result r = bench({"--workload=test-day", "--alloc=glibc", "--size=tiny", "--threads=1", "--reps=1",
                          "--profile-reps=1", "--out=" + out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const RunsTable t = load_runs(out, "results");  // bench's own reader takes what it wrote
  const CsvRow* profiled = row_of(t, "test-day", "profiled");
  ASSERT_NE(profiled, nullptr);
  ASSERT_EQ(t.text(*profiled, keys::status), "ok") << t.text(*profiled, keys::extra);
  const double day_ns = 86400e9, live = t.number(*profiled, keys::heap_requested_peak_bytes);
  EXPECT_GE(live, 24.0 * 1073741824.0);
  EXPECT_LT(live, 24.0 * 1073741824.0 + 1048576.0) << "24 GiB and the program's few small blocks";
  const double duration = t.number(*profiled, keys::duration_ns);
  EXPECT_GE(duration, day_ns);
  EXPECT_LT(duration, day_ns + 60e9) << "a day and the phase's real milliseconds";
  // The blocks were live for the whole phase: the load is their bytes times
  // the phase, to the record's 13 significant digits (the day before it would
  // double it); the average is the bytes.
  const double load = t.number(*profiled, keys::load_total_byte_ns);
  EXPECT_GT(load, 18446744073709551616.0) << "past 2^64";
  EXPECT_NEAR(load / (live * duration), 1.0, 1e-9) << t.text(*profiled, keys::load_total_byte_ns);
  EXPECT_NEAR(t.number(*profiled, keys::load_avg_bytes), live, 1.0);
  EXPECT_EQ(t.text(*profiled, keys::saturated_keys), "") << "no sum reached 2^64 - 1";
  const CsvRow* timed = row_of(t, "test-day", "timed");
  ASSERT_NE(timed, nullptr);
  EXPECT_GE(t.number(*timed, keys::elapsed_ns), day_ns) << "the program's own clock, as it reported it";
  // Every command that reads the folder reads it.
  const Result summarized = bench({"summarize", out.string()});
  EXPECT_EQ(summarized.exit_code, 0) << summarized.err;
  const Result checked = bench({"check", out.string(), out.string()});
  EXPECT_EQ(checked.exit_code, 0) << checked.out << checked.err;
}

// A program reports tx_commits_count=-1: its runs are failed with the column
// named, the other workload's runs are made after them, the sweep ends with
// the failed runs listed and why, and --redo-failed makes exactly them again.
TEST(LongRun, ABadValueFailsItsRunAndTheSweepGoesOn) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  testing::ScratchDir scratch("bad-value");
  const fs::path out = scratch.path() / "bad";
  const Result r = bench({"--workload=test-bad-metric,test-alloc", "--alloc=glibc", "--size=tiny", "--threads=1",
                          "--reps=1", "--profile-reps=1", "--out=" + out.string()});
  EXPECT_EQ(r.exit_code, 1) << "a failed run: exit 1\n" << r.out << r.err;
  const RunsTable t = load_runs(out, "results");
  ASSERT_EQ(t.rows.size(), 4u) << "the sweep went on after the bad rows";
  int failed = 0;
  for (const CsvRow& row : t.rows) {
    if (t.text(row, keys::workload) == "test-alloc") {
      EXPECT_EQ(t.text(row, keys::status), "ok");
      continue;
    }
    ++failed;
    EXPECT_EQ(t.text(row, keys::status), "failed");
    EXPECT_EQ(t.text(row, keys::tx_commits_count), "");
    EXPECT_NE(t.text(row, keys::extra).find("column tx_commits_count: '-1' is not a whole number"), std::string::npos)
        << t.text(row, keys::extra);
  }
  EXPECT_EQ(failed, 2);
  // The last lines list each failed run with its reason and the way to redo it.
  EXPECT_NE(r.out.find("2 run(s) did not end ok:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("test-bad-metric glibc t=1 tiny rep 1 profiled: failed — column tx_commits_count"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("--redo-failed"), std::string::npos) << r.out;
  // The redo: only the two failed runs are made again, and runs.csv keeps one
  // row per run.
  const Result dry = bench({"--resume", out.string(), "--redo-failed", "--dry-run"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("2 runs still to make (2 of 4 recorded)"), std::string::npos) << dry.out;
  const Result redo = bench({"--resume", out.string(), "--redo-failed"});
  EXPECT_EQ(redo.exit_code, 1) << redo.out << redo.err;
  EXPECT_NE(testing::flat(redo.err).find("--redo-failed: 2 failed run(s)"), std::string::npos) << redo.err;
  const RunsTable again = load_runs(out, "results");
  EXPECT_EQ(again.rows.size(), 4u);
  const Result without = bench({"--redo-failed"});
  EXPECT_EQ(without.exit_code, 2) << "--redo-failed alone: " << without.err;
  EXPECT_NE(testing::flat(without.err).find("goes with --resume"), std::string::npos) << without.err;
}

}  // namespace
}  // namespace allocstamp
