// smaps_test — memprof's memory figures at the measured phase's end (rss_kb,
// pss_kb, uss_kb, read from /proc/self/smaps_rollup, and hwm_kb) against what
// they must be by construction (targets/shared_pages): 64 MiB of shared pages
// that a forked child maps too or does not, 64 MiB touched and unmapped before
// the phase ends, 16 MiB of a file's clean pages. Counting mapped pages needs
// no allocator: glibc only.
#include <gtest/gtest.h>

#include <regex>

#include "profiled_run.h"

namespace allocstamp::testing {
namespace {

constexpr int64_t kRegionKb = 64 * 1024;  // shared_pages's region
// The two runs are the same program but for the child's touching the region,
// so the rest of the parent's memory is the same in both up to noise: memprof's
// and the stack's pages touched a little differently, and the PSS of libraries
// other processes map too, whose count of mappers changes between the runs.
// That is tens of pages; 2 MiB (512 pages, 3% of the region) bounds it and
// stays far from the mistakes the test is for, each off by 32 or 64 MiB.
constexpr int64_t kToleranceKb = 2 * 1024;

struct Memory {
  int64_t rss_kb, pss_kb, uss_kb;
};

RunResult run_target(const std::vector<std::string>& args, RunOptions options = {}) {
  const TestAllocator glibc{"glibc", "", "glibc", "glibc", {}};
  options.timeout_seconds = 60;
  RunResult r = run_program(target("shared_pages"), args, glibc, options);
  EXPECT_FALSE(r.timed_out) << r.describe();
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  return r;
}

Memory run_shared_pages(const std::string& mode) {
  RunResult r = run_target({mode});
  return {r.num("rss_kb"), r.num("pss_kb"), r.num("uss_kb")};
}

// Mapped by the parent alone, the region is all resident and private to it.
// Mapped by a child as well, each of its pages counts half in the parent's PSS
// (PSS divides a page by the processes mapping it) and not at all in its USS
// (private pages only); its RSS does not change.
TEST(SmapsRollup, PagesAForkedChildMapsTooCountHalfInPssAndNotInUss) {
  const Memory alone = run_shared_pages("alone");
  const Memory shared = run_shared_pages("shared");
  EXPECT_GE(alone.rss_kb, kRegionKb);
  EXPECT_GE(alone.uss_kb, kRegionKb);
  EXPECT_NEAR(shared.rss_kb, alone.rss_kb, kToleranceKb);
  EXPECT_NEAR((shared.rss_kb - shared.pss_kb) - (alone.rss_kb - alone.pss_kb), kRegionKb / 2, kToleranceKb)
      << "RSS less PSS: alone " << alone.rss_kb - alone.pss_kb << " kB, shared " << shared.rss_kb - shared.pss_kb
      << " kB";
  EXPECT_NEAR(alone.uss_kb - shared.uss_kb, kRegionKb, kToleranceKb)
      << "USS: alone " << alone.uss_kb << " kB, shared " << shared.uss_kb << " kB";
}

// hwm_kb is the peak RSS (VmHWM), not the RSS at the phase end: 64 MiB
// touched and unmapped inside the phase stay in it. (The kernel sums its RSS
// counters per CPU and reads them approximately: VmHWM fell up to 80 kB short
// of the RSS statm read with the region touched.)
TEST(SmapsRollup, PeakRssHoldsPagesUnmappedBeforeThePhaseEnd) {
  RunResult r = run_target({"peak"});
  EXPECT_GE(r.num("hwm_kb"), r.metric("touched_rss_kb") - kToleranceKb);
  EXPECT_GE(r.num("hwm_kb") - r.num("rss_kb"), kRegionKb - kToleranceKb)
      << "peak RSS " << r.num("hwm_kb") << " kB, at the phase end " << r.num("rss_kb") << " kB";
}

// USS is private clean and private dirty pages: a file's pages written back
// (clean) and mapped by this process alone count in it as in its RSS.
TEST(SmapsRollup, PrivateCleanPagesCountInUss) {
  constexpr int64_t kFileKb = 16 * 1024;  // shared_pages clean's file
  RunResult untouched = run_target({"clean-untouched", TARGET_DIR});
  RunResult touched = run_target({"clean", TARGET_DIR});
  EXPECT_NEAR(touched.num("rss_kb") - untouched.num("rss_kb"), kFileKb, kToleranceKb);
  EXPECT_NEAR(touched.num("uss_kb") - untouched.num("uss_kb"), kFileKb, kToleranceKb)
      << "USS: untouched " << untouched.num("uss_kb") << " kB, touched " << touched.num("uss_kb") << " kB";
}

// "12.3 MiB", as the summary writes sizes, in kB.
double summary_kb(const std::string& number, const std::string& unit) {
  const std::map<std::string, double> kb = {{"B", 1.0 / 1024}, {"KiB", 1}, {"MiB", 1024}, {"GiB", 1024 * 1024}};
  return std::stod(number) * kb.at(unit);
}

// The summary on stderr (no MEMPROF_OUT) says what the record says: its
// memory line's rss, pss and uss are the record's rss_kb, pss_kb and uss_kb,
// to the summary's rounding and the runs' noise. With the region shared, PSS
// is 32 MiB above USS, so neither can stand for the other.
TEST(SmapsRollup, SummaryMemoryLineIsTheRecords) {
  const Memory record = run_shared_pages("shared");
  RunResult text = run_target({"shared"}, RunOptions{.env = {{"MEMPROF_OUT", ""}}});
  std::smatch m;
  const std::string size = "([0-9.]+) (B|KiB|MiB|GiB)";
  ASSERT_TRUE(std::regex_search(text.err, m, std::regex("  memory +rss " + size + ", pss " + size + ", uss " + size)))
      << text.err;
  EXPECT_NEAR(summary_kb(m[1], m[2]), record.rss_kb, kToleranceKb) << m[0];
  EXPECT_NEAR(summary_kb(m[3], m[4]), record.pss_kb, kToleranceKb) << m[0];
  EXPECT_NEAR(summary_kb(m[5], m[6]), record.uss_kb, kToleranceKb) << m[0];
}

}  // namespace
}  // namespace allocstamp::testing
