// simulate_e2e_test — simulated runs through the real binary (bench
// --simulate, then bench check): two simulated sweeps of one build agree and
// pass (single-threaded programs agree exactly); a regression planted for real (libplant_shim.so in front of glibc,
// PLANT_WORK instructions per allocating call) fails the gate on the
// simulated instructions, and padding every block fails it on the simulated
// misses; scudo's simulated runs are refused with their measured reason.
// Skips without valgrind (fails under CI=true, which installs it).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "run_command.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;

class Simulate : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_WHEN_WORKLOADS_ARE_SANITIZED();  // valgrind cannot run a sanitizer's runtime
    const std::string valgrind = testing::run_command({"/bin/sh", "-c", "command -v valgrind"}).out;
    SKIP_UNLESS_INSTALLED(!valgrind.empty(), "valgrind");
    // glibc behind the shim, as aa-check --simulated plants it.
    std::ofstream(dir_ / "plant.json") << R"({"schema": 1, "allocators": [{"name": "glibc+plant",
      "description": "glibc behind libplant_shim.so", "package": "libc6", "libraries": [")"
                                       << PLANT_SHIM << R"("], "env": {}}]})";
  }

  testing::CommandResult bench(std::vector<std::string> args, std::vector<std::string> env = {}) {
    args.insert(args.begin(), BENCH_BINARY);
    testing::CommandOptions options;
    options.env = {"ALLOCSTAMP_NO_PLOT=1"};
    options.env.insert(options.env.end(), env.begin(), env.end());
    options.drop_prefixes = {"PLANT_", "ALLOCSTAMP_"};
    return testing::run_command(args, options);
  }

  // A simulated-only sweep of churn and maps-churn-std_map (tiny, one thread,
  // single-threaded programs: exact under valgrind) into dir_/name.
  fs::path sweep(const std::string& name, std::vector<std::string> env = {}, const std::string& alloc = "glibc+plant") {
    const fs::path out = dir_ / name;
    const testing::CommandResult r =
        bench({"--alloc=" + alloc, "--workload=churn,maps-churn-std_map", "--size=tiny", "--threads=1", "--reps=0",
               "--profile-reps=0", "--simulate", "--registry=" + (dir_ / "plant.json").string(), "--out=" + out.string()},
              env);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return out;
  }

  testing::CommandResult check(const fs::path& base, const fs::path& cur) {
    return bench({"check", "--baseline=" + base.string(), "--current=" + cur.string(), "--deterministic-only",
                  "--csv=" + (dir_ / "check.csv").string()});
  }

  testing::ScratchDir dir_{"simulate-e2e"};
};

TEST_F(Simulate, TheSameBuildTwicePassesAndAPlantedRegressionFails) {
  const fs::path a = sweep("a"), b = sweep("b");
  testing::CommandResult same = check(a, b);
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  EXPECT_NE(same.out.find("simulated 8 ok"), std::string::npos) << same.out;  // 2 workloads x 4 figures
  // 40 instructions more per allocating call: churn and the map churn
  // allocate in most operations of their measured phase, far above 0.5%.
  const fs::path planted = sweep("planted", {"PLANT_WORK=20"});
  testing::CommandResult worse = check(a, planted);
  EXPECT_EQ(worse.exit_code, 1) << worse.out << worse.err;
  const std::string rows = testing::slurp(dir_ / "check.csv");
  for (const char* workload : {"churn,", "maps-churn-std_map,"}) {
    const auto at = rows.find(std::string("\n") + workload);
    ASSERT_NE(at, std::string::npos) << rows;
  }
  EXPECT_NE(rows.find("sim_instructions_count,simulated,1,1,"), std::string::npos) << rows;
  EXPECT_NE(worse.out.find("regressed"), std::string::npos) << worse.out;
}

TEST_F(Simulate, PaddedBlocksFailOnTheSimulatedMisses) {
  const fs::path a = sweep("a"), padded = sweep("padded", {"PLANT_PAD=64"});
  testing::CommandResult worse = check(a, padded);
  EXPECT_EQ(worse.exit_code, 1) << worse.out << worse.err;
  EXPECT_NE(worse.out.find("sim_d1_misses_count"), std::string::npos) << worse.out;
}

// Simulated at more threads than timed and profiled (--help's own example):
// the figures are drawn at the thread counts that measured the program; the
// memory, regions and mechanisms figures were dropped with false reasons
// ("profiled with --profile=none?") and a speedup was drawn of nothing.
TEST_F(Simulate, SimulatedThreadsBeyondTheMeasuredLeaveTheFiguresWhereTheRunsAre) {
  const fs::path out = dir_ / "beyond";
  const testing::CommandResult r =
      bench({"--alloc=glibc,jemalloc", "--workload=churn", "--size=tiny", "--threads=1", "--reps=2", "--profile-reps=1",
             "--simulate", "--simulate-threads=1,2", "--simulate-reps=1", "--out=" + out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const testing::CommandResult plot = bench({"plot", out.string()});
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  const std::string report = testing::slurp(out / "report.md");
  for (const char* figure : {"memory-churn", "regions-churn", "mechanisms-churn"}) {
    EXPECT_TRUE(fs::exists(out / "figures" / (std::string(figure) + ".svg"))) << figure << ":\n" << report;
  }
  EXPECT_EQ(report.find("profiled with --profile=none?"), std::string::npos) << report;
  EXPECT_FALSE(fs::exists(out / "figures" / "speedup-churn.svg")) << "one timed thread count: no speedup";
}

TEST_F(Simulate, ScudoIsRefusedWithItsReason) {
  const fs::path out = sweep("scudo", {}, "scudo");
  const std::string runs = testing::slurp(out / "runs.csv");
  if (runs.find("allocator not installed") != std::string::npos) GTEST_SKIP() << "scudo is not installed";
  EXPECT_NE(runs.find("skipped"), std::string::npos) << runs;
  EXPECT_NE(runs.find("not simulated: scudo reserves 180 GiB"), std::string::npos) << runs;
}

}  // namespace
}  // namespace allocstamp
