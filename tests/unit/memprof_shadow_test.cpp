// memprof_shadow_test — the shadow size map on its own: sizes kept inline and
// spilled (also at the end of a leaf's halves), odd marks, blocks 8 bytes
// apart, the hot path's forget_plain, forgotten once, unknown pointers.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "recording/shadow.h"

namespace memprof::shadow {
namespace {

// Addresses in a GiB of the address space no test process uses for its heap.
uintptr_t base_of_leaf(size_t leaf) { return uintptr_t(leaf) << kLeafShift; }
void* at(uintptr_t a) { return reinterpret_cast<void*>(a); }

bool remember(const void* p, size_t size, bool odd = false) { return shadow::remember(p, size, odd); }
bool forget3(const void* p, size_t* size, bool* odd) { return shadow::forget(p, size, odd); }

// forget() for tests that only want the size.
bool forget(const void* p, size_t* size) {
  bool odd = true;
  bool known = forget3(p, size, &odd);
  EXPECT_FALSE(known && odd) << "a block remembered as plain came back odd";
  return known;
}

TEST(Shadow, InlineSizesRoundTrip) {
  uintptr_t base = base_of_leaf(100);
  for (size_t size : {size_t(0), size_t(1), size_t(16), size_t(4096), size_t(kInlineMax)}) {
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
  for (size_t size : {size_t(kInlineMax + 1), size_t(32767), size_t(100000), size_t(1) << 33}) {
    void* p = at(base + 4096);
    ASSERT_TRUE(remember(p, size));
    size_t got = 0;
    ASSERT_TRUE(forget(p, &got));
    EXPECT_EQ(got, size);
  }
}

TEST(Shadow, SpillAtALeafsEndStaysOutOfTheNextLeaf) {
  // Blocks starting 16 and 8 bytes before the end of a leaf (the last entries
  // of its two halves) spill into the pads, not over the entries of blocks at
  // the start of the next leaf.
  uintptr_t next_leaf = base_of_leaf(103);
  for (uintptr_t offset : {0, 8, 16, 24}) ASSERT_TRUE(remember(at(next_leaf + offset), offset + 7));
  for (uintptr_t back : {16, 8}) ASSERT_TRUE(remember(at(next_leaf - back), 100000 + back));
  size_t got = 0;
  for (uintptr_t back : {16, 8}) {
    ASSERT_TRUE(forget(at(next_leaf - back), &got));
    EXPECT_EQ(got, 100000 + back);
  }
  for (uintptr_t offset : {0, 8, 16, 24}) {
    ASSERT_TRUE(forget(at(next_leaf + offset), &got));
    EXPECT_EQ(got, offset + 7);
  }
}

TEST(Shadow, OddMarksRoundTripInlineAndSpilled) {
  // Odd and plain blocks of the same sizes keep their own mark.
  uintptr_t base = base_of_leaf(108);
  size_t sizes[] = {0, 1, 8, 9, 100, 4096, kInlineMax, kInlineMax + 1, size_t(1) << 40};
  for (bool odd : {true, false}) {
    for (size_t size : sizes) {
      void* p = at(base + size % 4096 * 64 + (odd ? 1 << 20 : 0));
      ASSERT_TRUE(remember(p, size, odd)) << size;
      size_t got = 12345;
      bool got_odd = !odd;
      ASSERT_TRUE(forget3(p, &got, &got_odd)) << size;
      EXPECT_EQ(got, size);
      EXPECT_EQ(got_odd, odd) << size;
      EXPECT_FALSE(forget3(p, &got, &got_odd)) << "forget clears the entry";
    }
  }
}

TEST(Shadow, ForgetPlainTakesOnlyPlainInlineEntries) {
  // The hot path's one-test forget leaves odd, spilled and unknown entries
  // untouched for forget() to decode.
  uintptr_t base = base_of_leaf(109);
  size_t got = 777;
  ASSERT_TRUE(remember(at(base), 300));
  ASSERT_TRUE(forget_plain(at(base), &got));
  EXPECT_EQ(got, 300u);
  EXPECT_FALSE(forget_plain(at(base), &got)) << "already forgotten";
  ASSERT_TRUE(remember(at(base + 64), 300, true));
  ASSERT_TRUE(remember(at(base + 128), kInlineMax + 1));
  ASSERT_TRUE(remember(at(base + 128 * 1024), 0, true));
  for (uintptr_t offset : {64, 128, 128 * 1024}) {
    got = 777;
    EXPECT_FALSE(forget_plain(at(base + offset), &got)) << offset;
    EXPECT_EQ(got, 777u) << "forget_plain changed nothing";
  }
  bool odd = false;
  ASSERT_TRUE(forget3(at(base + 64), &got, &odd));
  EXPECT_EQ(got, 300u);
  EXPECT_TRUE(odd);
  ASSERT_TRUE(forget(at(base + 128), &got));
  EXPECT_EQ(got, kInlineMax + 1);
  ASSERT_TRUE(forget3(at(base + 128 * 1024), &got, &odd));
  EXPECT_EQ(got, 0u);
  EXPECT_TRUE(odd);
}

TEST(Shadow, FailedReallocRestoresTheEntry) {
  uintptr_t base = base_of_leaf(110);
  ASSERT_TRUE(remember(at(base), 300, true));
  size_t got = 0;
  bool odd = false;
  ASSERT_TRUE(forget3(at(base), &got, &odd));
  restore(at(base), got, odd);
  got = 0;
  odd = false;
  ASSERT_TRUE(forget3(at(base), &got, &odd));
  EXPECT_EQ(got, 300u);
  EXPECT_TRUE(odd);
}

TEST(Shadow, NeighboursDoNotInterfere) {
  // 8-byte blocks back to back (both halves of a leaf), then 24-byte blocks,
  // every other one starting 8 bytes past 16.
  for (size_t stride : {8, 24}) {
    uintptr_t base = base_of_leaf(104) + stride * 4096;
    std::vector<void*> blocks;
    for (int i = 0; i < 64; ++i) {
      blocks.push_back(at(base + stride * i));
      ASSERT_TRUE(remember(blocks.back(), size_t(i % int(stride + 1))));
    }
    for (int i = 63; i >= 0; --i) {
      size_t got = 99;
      ASSERT_TRUE(forget(blocks[i], &got));
      EXPECT_EQ(got, size_t(i % int(stride + 1))) << "stride " << stride << ", block " << i;
    }
  }
}

TEST(Shadow, ForgettingASpilledSizeClearsItsSpillBytes) {
  uintptr_t base = base_of_leaf(107);
  for (bool odd : {false, true}) {
    for (uintptr_t start : {base, base + 8}) {  // both halves
      ASSERT_TRUE(remember(at(start), 50000, odd));
      size_t got = 0;
      bool got_odd = !odd;
      ASSERT_TRUE(forget3(at(start), &got, &got_odd));
      EXPECT_EQ(got, 50000u);
      EXPECT_EQ(got_odd, odd);
      for (uintptr_t k = 1; k <= 8; ++k)
        EXPECT_FALSE(forget3(at(start + 8 * k), &got, &got_odd)) << "granule " << k << " looks like a live entry";
    }
  }
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
