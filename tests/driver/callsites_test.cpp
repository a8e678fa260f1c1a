// callsites_test — sampled call sites end to end: a program that leaks from two
// known functions, run under memprof with MEMPROF_SAMPLE_BYTES=64K under each
// of the registry's allocators, shows both at the top by bytes live at exit, each
// within 20% of the truth; a block grown by realloc is sampled as the
// allocation of its new size; the bytes each site held when the heap peaked
// are within 20% of the truth; sampling changes none of memprof's counts; and
// `bench --callsites` writes callsites.csv with function, file and line.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "results/callsites.h"
#include "profiled_run.h"
#include "run_command.h"

namespace allocstamp {
namespace {

namespace fs = std::filesystem;
using testing::TestAllocator;

class Leaks : public ::testing::TestWithParam<TestAllocator> {};

TEST_P(Leaks, BothLeakingFunctionsLeadWithinTwentyPercent) {
  const TestAllocator& allocator = GetParam();
  SKIP_UNLESS_INSTALLED(testing::installed(allocator), allocator.name);
  fs::path sites = fs::temp_directory_path() / ("leaks-" + std::to_string(getpid()) + "-" + allocator.name + ".txt");
  testing::RunOptions sampled;
  sampled.env = {{"MEMPROF_SAMPLE_BYTES", "64K"}, {"MEMPROF_CALLSITES", sites.string()}};
  testing::RunResult on = testing::run_program(testing::target("leaks"), {}, allocator, sampled);
  ASSERT_EQ(on.exit_code, 0) << on.describe();

  CallsiteFile file = read_callsites(sites);
  fs::remove(sites);
  EXPECT_EQ(file.sample_bytes, 65536u);
  EXPECT_EQ(file.dropped, 0u);
  std::vector<std::vector<Frame>> frames = symbolise(file);
  std::map<std::string, double> live, at_peak;  // by the function that called malloc or realloc
  for (std::size_t i = 0; i < file.stacks.size(); ++i) {
    const CallsiteStack& s = file.stacks[i];
    std::string function = frames[i].empty() ? "??" : frames[i][0].function;
    live[function] += double(s.est_alloc_bytes) - double(s.est_freed_bytes);
    at_peak[function] += double(s.est_live_bytes_at_peak);
  }
  std::vector<std::pair<double, std::string>> ranked;
  for (const auto& [function, bytes] : live) ranked.push_back({bytes, function});
  std::sort(ranked.rbegin(), ranked.rend());
  ASSERT_GE(ranked.size(), 2u);
  EXPECT_EQ(ranked[0].second, "leak_big_buffers");
  EXPECT_EQ(ranked[1].second, "leak_small_nodes");
  EXPECT_NEAR(live["leak_big_buffers"], 16000000.0, 0.2 * 16000000.0);
  EXPECT_NEAR(live["leak_small_nodes"], 10240000.0, 0.2 * 10240000.0);
  EXPECT_NEAR(live["churn_and_free"], 0.0, 1.0) << "every sampled block of churn_and_free was freed";
  EXPECT_NEAR(live["hold_at_peak"], 0.0, 1.0) << "every sampled block of hold_at_peak was freed";
  EXPECT_NEAR(live["grow_by_realloc"], 4000000.0, 0.2 * 4000000.0) << "realloc's new block is sampled";
  // When the heap peaked: hold_at_peak's 30 MB and leak_small_nodes' 10.24 MB
  // were live; leak_big_buffers and grow_by_realloc had not run.
  EXPECT_NEAR(at_peak["hold_at_peak"], 30000000.0, 0.2 * 30000000.0);
  EXPECT_NEAR(at_peak["leak_small_nodes"], 10240000.0, 0.2 * 10240000.0);
  EXPECT_EQ(at_peak["leak_big_buffers"], 0.0);
  EXPECT_EQ(at_peak["grow_by_realloc"], 0.0);

  // The same run without sampling counts the same.
  testing::RunResult off = testing::run_program(testing::target("leaks"), {}, allocator);
  ASSERT_EQ(off.exit_code, 0) << off.describe();
  for (const char* key : {"allocs_seq_count", "frees_seq_count", "requested_seq_bytes", "heap_requested_peak_bytes",
                          "heap_requested_end_bytes", "live_blocks_peak_count", "size_le256_count",
                          "size_gt1024_count", "frees_untracked_count", "reallocs_count"})
    EXPECT_EQ(on.num(key), off.num(key)) << key;
}

INSTANTIATE_TEST_SUITE_P(EveryAllocator, Leaks, ::testing::ValuesIn(testing::test_allocators()),
                         [](const auto& info) { return info.param.id; });

TEST(Callsites, BenchWritesSitesWithFunctionFileAndLine) {
  SKIP_WHEN_WORKLOADS_ARE_SANITIZED();
  fs::path out = fs::temp_directory_path() / ("callsites-bench-" + std::to_string(getpid()));
  fs::remove_all(out);
  testing::CommandResult r = testing::run_command(
      {BENCH_BINARY, "--workload=vacation-high", "--alloc=glibc", "--size=tiny", "--reps=1", "--no-series",
       "--callsites=16K", "--out=" + out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<SiteRow> rows = read_site_rows(out);
  ASSERT_FALSE(rows.empty());
  bool named = false;
  for (const SiteRow& s : rows) named = named || (s.function.find("add_") != std::string::npos && s.line > 0);
  EXPECT_TRUE(named) << "a site in vacation's table setup, with its line";
  EXPECT_TRUE(fs::exists(out / "callsites" / (std::to_string(rows.front().run_id) + ".folded")));
  // The report's top sites come largest first: rank 1 is the site that
  // allocated the most (the MiB column never grows down a table).
  std::ifstream report(out / "report.md");
  bool in_section = false;
  std::vector<double> mib;
  for (std::string line; std::getline(report, line);) {
    if (line.rfind("## ", 0) == 0) in_section = line == "## Call sites";
    if (!in_section || line.rfind("| glibc | ", 0) != 0 || line.find("est. MiB") != std::string::npos) continue;
    std::vector<std::string> cells;
    for (std::size_t at = 1, bar; (bar = line.find(" |", at)) != std::string::npos; at = bar + 2)
      cells.push_back(line.substr(at + 1, bar - at - 1));
    ASSERT_GE(cells.size(), 6u) << line;
    if (cells[1] == "1" && !mib.empty()) break;  // the next table: bytes live at exit
    mib.push_back(std::stod(cells[4]));
  }
  ASSERT_GE(mib.size(), 3u) << "glibc's sites allocated, in report.md";
  EXPECT_TRUE(std::is_sorted(mib.rbegin(), mib.rend())) << "largest first";
  EXPECT_GT(mib.front(), mib.back());
  fs::remove_all(out);
}

}  // namespace
}  // namespace allocstamp
