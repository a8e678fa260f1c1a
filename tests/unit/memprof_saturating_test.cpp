// memprof_saturating_test — memprof's sums stop at their type's bound instead
// of wrapping (base/saturating.h): a sum of bytes past 2^64 reads 2^64 - 1,
// which the record names in saturated_keys, never a small number.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>

#include "base/saturating.h"

namespace memprof {
namespace {

TEST(Saturating, AByteSumPast2To64StopsThere) {
  uint64_t requested = 0;
  for (int i = 0; i < 5; ++i) saturating::bump(requested, uint64_t(1) << 62);  // 5 x 2^62 > 2^64
  EXPECT_EQ(requested, UINT64_MAX);
  saturating::bump(requested, 1);
  EXPECT_EQ(requested, UINT64_MAX) << "it stays at the bound";
  uint64_t below = UINT64_MAX - 10;
  saturating::bump(below, 10);
  EXPECT_EQ(below, UINT64_MAX) << "exactly 2^64 - 1 is reached, not passed";
  uint64_t small = 7;
  saturating::bump(small, 5);
  EXPECT_EQ(small, 12u) << "below the bound a sum is a sum";
}

TEST(Saturating, SharedSumsAndSignedSumsStopAtTheirBounds) {
  uint64_t merged = UINT64_MAX - 1;
  saturating::add_atomic(&merged, 3);  // a thread's counters merged at its exit
  EXPECT_EQ(merged, UINT64_MAX);
  std::atomic<uint64_t> scope_bytes{uint64_t(1) << 63};
  saturating::add_atomic(scope_bytes, uint64_t(1) << 63);
  EXPECT_EQ(scope_bytes.load(), UINT64_MAX);
  std::atomic<int64_t> held{INT64_MAX - 1};
  saturating::add_atomic(held, int64_t(5));
  EXPECT_EQ(held.load(), INT64_MAX);
  held = INT64_MIN + 1;
  saturating::add_atomic(held, int64_t(-5));
  EXPECT_EQ(held.load(), INT64_MIN);
  EXPECT_EQ(saturating::add(int64_t(-3), int64_t(5)), 2);
}

}  // namespace
}  // namespace memprof
