// memprof_shadow_test — the shadow size map on its own: sizes kept inline and
// spilled (also across a leaf boundary), forgotten once, unknown pointers.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "shadow.h"

namespace memprof::shadow {
namespace {

// Addresses in a GiB of the address space no test process uses for its heap.
uintptr_t base_of_leaf(size_t leaf) { return uintptr_t(leaf) << kLeafShift; }
void* at(uintptr_t a) { return reinterpret_cast<void*>(a); }

TEST(Shadow, InlineSizesRoundTrip) {
  uintptr_t base = base_of_leaf(100);
  for (size_t size : {size_t(0), size_t(1), size_t(16), size_t(253)}) {
    void* p = at(base + size * 64);
    ASSERT_TRUE(remember(p, size));
    size_t got = 9999;
    ASSERT_TRUE(forget(p, &got));
    EXPECT_EQ(got, size);
    EXPECT_FALSE(forget(p, &got)) << "forget clears the entry";
  }
}

TEST(Shadow, SpilledSizesRoundTrip) {
  uintptr_t base = base_of_leaf(101);
  for (size_t size : {size_t(254), size_t(255), size_t(4096), size_t(1) << 33}) {
    void* p = at(base + 4096);
    ASSERT_TRUE(remember(p, size));
    size_t got = 0;
    ASSERT_TRUE(forget(p, &got));
    EXPECT_EQ(got, size);
  }
}

TEST(Shadow, SpillAcrossLeafBoundary) {
  // A block starting 16 bytes before the end of a leaf spills into the next one.
  void* p = at(base_of_leaf(103) - 16);
  ASSERT_TRUE(remember(p, 100000));
  size_t got = 0;
  ASSERT_TRUE(forget(p, &got));
  EXPECT_EQ(got, 100000u);
}

TEST(Shadow, NeighboursDoNotInterfere) {
  uintptr_t base = base_of_leaf(104);
  std::vector<void*> blocks;
  for (int i = 0; i < 64; ++i) {
    blocks.push_back(at(base + 8 * i));  // 8-byte blocks, back to back
    ASSERT_TRUE(remember(blocks.back(), size_t(i % 8)));
  }
  for (int i = 63; i >= 0; --i) {
    size_t got = 99;
    ASSERT_TRUE(forget(blocks[i], &got));
    EXPECT_EQ(got, size_t(i % 8));
  }
}

TEST(Shadow, ForgettingASpilledSizeClearsItsSpillBytes) {
  uintptr_t base = base_of_leaf(107);
  ASSERT_TRUE(remember(at(base), 5000));
  size_t got = 0;
  ASSERT_TRUE(forget(at(base), &got));
  for (uintptr_t k = 1; k <= 8; ++k)
    EXPECT_FALSE(forget(at(base + 8 * k), &got)) << "granule " << k << " looks like a live entry";
}

TEST(Shadow, UnknownAndMisalignedPointers) {
  size_t got = 0;
  EXPECT_FALSE(forget(at(base_of_leaf(105) + 64), &got)) << "never remembered";
  EXPECT_FALSE(remember(at(base_of_leaf(105) + 3), 10)) << "not 8-byte aligned";
  EXPECT_FALSE(remember(at(uintptr_t(1) << 50), 10)) << "beyond 47-bit user space";
  EXPECT_FALSE(forget(at(uintptr_t(1) << 50), &got));
}

TEST(Shadow, ResidentBytesCountsTouchedLeaves) {
  uint64_t before = resident_bytes();
  uintptr_t base = base_of_leaf(106);
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(remember(at(base + uintptr_t(i) * (1 << 20)), 8));
  // 100 MiB of address span with one block per MiB: 100 shadow pages touched.
  EXPECT_GE(resident_bytes() - before, 100u * 4096u);
}

}  // namespace
}  // namespace memprof::shadow
