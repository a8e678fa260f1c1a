// smaps_test — memprof's memory figures at the measured phase's end (rss_kb,
// pss_kb, uss_kb, read from /proc/self/smaps_rollup) against what they must be
// by construction: 64 MiB of shared pages (targets/shared_pages) that a forked
// child maps too or does not. Counting mapped pages needs no allocator: glibc only.
#include <gtest/gtest.h>

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

Memory run_shared_pages(const std::string& mode) {
  const TestAllocator glibc{"glibc", "", "glibc", "glibc", {}};
  RunOptions options;
  options.timeout_seconds = 60;
  RunResult r = run_program(target("shared_pages"), {mode}, glibc, options);
  EXPECT_FALSE(r.timed_out) << r.describe();
  EXPECT_EQ(r.exit_code, 0) << r.describe();
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

}  // namespace
}  // namespace allocstamp::testing
