// kernel_gate_e2e_test — bench check's kernel counts through the real binary:
// two sweeps of one build (churn and maps-churn-std_map, tiny, one thread,
// jemalloc behind libplant_shim.so) pass with every minor-fault and
// kernel-call count compared, and a fresh page mapped, touched and unmapped
// on every 200th allocating call (PLANT_PAGES=200) fails the gate on the minor
// faults and on the allocator's mmap and munmap calls.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "run_command.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;

constexpr const char* kJemalloc = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";

class KernelGate : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_WHEN_WORKLOADS_ARE_SANITIZED();  // memprof is preloaded into the workloads
    SKIP_UNLESS_INSTALLED(fs::exists(kJemalloc), "libjemalloc2");
    // jemalloc, whose kernel calls memprof sees (glibc's it cannot), behind the shim.
    std::ofstream(dir_ / "plant.json") << R"({"schema": 1, "allocators": [{"name": "jemalloc+plant",
      "description": "jemalloc behind libplant_shim.so", "package": "libjemalloc2", "libraries": [")"
                                       << PLANT_SHIM << ":" << kJemalloc << R"("], "env": {}}]})";
  }

  testing::CommandResult bench(std::vector<std::string> args, std::vector<std::string> env = {}) {
    args.insert(args.begin(), BENCH_BINARY);
    testing::CommandOptions options;
    options.env = {"ALLOCSTAMP_NO_PLOT=1"};
    options.env.insert(options.env.end(), env.begin(), env.end());
    options.drop_prefixes = {"PLANT_", "ALLOCSTAMP_"};
    return testing::run_command(args, options);
  }

  fs::path sweep(const std::string& name, std::vector<std::string> env = {}) {
    const fs::path out = dir_ / name;
    const testing::CommandResult r =
        bench({"--alloc=jemalloc+plant", "--workload=churn,maps-churn-std_map", "--size=tiny", "--threads=1", "--reps=2",
               "--profile-reps=2", "--no-simulate", "--registry=" + (dir_ / "plant.json").string(), "--out=" + out.string()},
              env);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return out;
  }

  testing::CommandResult check(const fs::path& base, const fs::path& cur) {
    return bench({"check", "--baseline=" + base.string(), "--current=" + cur.string(), "--deterministic-only",
                  "--csv=" + (dir_ / "check.csv").string()});
  }

  testing::ScratchDir dir_{"kernel-gate-e2e"};
};

// The CSV rows of `metric` whose verdict is `verdict`.
int rows_with(const std::string& csv, const std::string& metric, const std::string& verdict) {
  int n = 0;
  std::size_t at = 0;
  while ((at = csv.find("\n", at)) != std::string::npos) {
    const std::size_t end = csv.find('\n', at + 1);
    const std::string line = csv.substr(at + 1, end == std::string::npos ? std::string::npos : end - at - 1);
    if (line.find("," + metric + ",kernel,") != std::string::npos && line.find("," + verdict + ",") != std::string::npos) ++n;
    at = at + 1;
  }
  return n;
}

TEST_F(KernelGate, TheSameBuildTwicePassesAndPlantedPagesFail) {
  const fs::path a = sweep("a"), b = sweep("b");
  const testing::CommandResult same = check(a, b);
  EXPECT_EQ(same.exit_code, 0) << same.out << same.err;
  // 2 workloads x (minor faults + 7 kinds of kernel call), every one compared.
  EXPECT_NE(same.out.find("kernel 16 ok"), std::string::npos) << same.out;
  const fs::path planted = sweep("planted", {"PLANT_PAGES=200"});
  const testing::CommandResult worse = check(a, planted);
  EXPECT_EQ(worse.exit_code, 1) << worse.out << worse.err;
  const std::string rows = testing::slurp(dir_ / "check.csv");
  EXPECT_EQ(rows_with(rows, "minor_faults_count", "regressed"), 2) << rows;
  EXPECT_EQ(rows_with(rows, "kcall_mmap_count", "regressed"), 2) << rows;
  EXPECT_EQ(rows_with(rows, "kcall_munmap_count", "regressed"), 2) << rows;
  EXPECT_EQ(rows_with(rows, "kcall_madvise_dontneed_count", "ok"), 2) << rows;
}

}  // namespace
}  // namespace allocstamp
