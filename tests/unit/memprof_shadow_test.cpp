// memprof_shadow_test — the shadow size map on its own: sizes kept inline and
// spilled (also at a leaf's end), odd marks of every width, forgotten once,
// unknown pointers.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "shadow.h"

namespace memprof::shadow {
namespace {

// Addresses in a GiB of the address space no test process uses for its heap.
uintptr_t base_of_leaf(size_t leaf) { return uintptr_t(leaf) << kLeafShift; }
void* at(uintptr_t a) { return reinterpret_cast<void*>(a); }

// A spill word with no block to go to lands here, as in a thread's state.
uint64_t scratch;

bool remember(const void* p, size_t size, bool odd = false) { return shadow::remember(p, size, odd, &scratch); }
bool forget3(const void* p, size_t* size, bool* odd) { return shadow::forget(p, size, odd, &scratch); }

// forget() for tests that only want the size.
bool forget(const void* p, size_t* size) {
  bool odd = true;
  bool known = forget3(p, size, &odd);
  EXPECT_FALSE(known && odd) << "a block remembered as plain came back odd";
  return known;
}

TEST(Shadow, InlineSizesRoundTrip) {
  uintptr_t base = base_of_leaf(100);
  for (size_t size : {size_t(0), size_t(1), size_t(16), size_t(kInlineLimit - 1)}) {
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
  for (size_t size : {size_t(kInlineLimit), size_t(254), size_t(255), size_t(4096), size_t(1) << 33}) {
    void* p = at(base + 4096);
    ASSERT_TRUE(remember(p, size));
    size_t got = 0;
    ASSERT_TRUE(forget(p, &got));
    EXPECT_EQ(got, size);
  }
}

TEST(Shadow, SpillAtALeafsEndStaysOutOfTheNextLeaf) {
  // A block starting 16 bytes before the end of a leaf spills into the leaf's pad,
  // not over the entries of blocks at the start of the next leaf.
  void* next = at(base_of_leaf(103));
  ASSERT_TRUE(remember(next, 7));
  void* p = at(base_of_leaf(103) - 16);
  ASSERT_TRUE(remember(p, 100000));
  size_t got = 0;
  ASSERT_TRUE(forget(p, &got));
  EXPECT_EQ(got, 100000u);
  ASSERT_TRUE(forget(next, &got));
  EXPECT_EQ(got, 7u);
}

TEST(Shadow, OddMarksRoundTripAtEveryWidth) {
  // Tiny (0..8, in the byte), one extra byte (9..255), spilled (above), and
  // plain sizes beside them keep their own mark.
  uintptr_t base = base_of_leaf(108);
  size_t sizes[] = {0, 1, 8, 9, 100, 243, 244, 255, 256, 4096, size_t(1) << 40};
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

TEST(Shadow, ForgettingAnOddSizeClearsItsExtraByte) {
  uintptr_t base = base_of_leaf(109);
  ASSERT_TRUE(remember(at(base), 200, true));
  size_t got = 0;
  bool odd = false;
  ASSERT_TRUE(forget3(at(base), &got, &odd));
  EXPECT_FALSE(forget(at(base + 8), &got)) << "the extra byte looks like a live entry";
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
