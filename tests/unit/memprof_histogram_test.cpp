// memprof_histogram_test — the size histogram's bins (PPoPP'15 boundaries:
// <=16, 32, 48, 64, 96, 128, 256, 512, 1024, >1024) at and around every edge.
#include <gtest/gtest.h>

#include "recording/counters.h"

namespace memprof {
namespace {

TEST(Histogram, EveryBoundary) {
  const uint64_t upper[] = {16, 32, 48, 64, 96, 128, 256, 512, 1024};
  for (unsigned bin = 0; bin < 9; ++bin) {
    EXPECT_EQ(size_bin(upper[bin]), bin) << upper[bin];
    EXPECT_EQ(size_bin(upper[bin] + 1), bin + 1) << upper[bin] + 1;
  }
  EXPECT_EQ(size_bin(0), 0u);
  EXPECT_EQ(size_bin(1), 0u);
  EXPECT_EQ(size_bin(uint64_t(1) << 40), 9u);
}

TEST(Histogram, MonotoneOverAllSmallSizes) {
  unsigned previous = 0;
  for (uint64_t n = 0; n <= 4096; ++n) {
    unsigned bin = size_bin(n);
    EXPECT_GE(bin, previous) << n;
    previous = bin;
  }
}

}  // namespace
}  // namespace memprof
