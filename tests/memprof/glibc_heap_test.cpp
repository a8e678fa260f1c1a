// glibc_heap_test.cpp — memprof's reading of what glibc's malloc holds
// (allocators/introspect/glibc_heap.cpp) survives mappings that other threads
// unmap while it reads: a detached thread's stack freed as the program exits
// once crashed the report (threads many, 1 run in ~100 under load).
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <atomic>
#include <thread>

#include "glibc_heap.h"

namespace {

using memprof::introspect::glibc_heap_held;
using memprof::introspect::read_word;

TEST(GlibcHeap, AWordIsReadWhereMappedAndRefusedWhereNot) {
  const size_t page = 4096;
  void* p = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  static_cast<uintptr_t*>(p)[1] = 0x1234567;
  uintptr_t value = 0;
  EXPECT_TRUE(read_word(reinterpret_cast<uintptr_t>(p) + sizeof(uintptr_t), value));
  EXPECT_EQ(value, 0x1234567u);
  ASSERT_EQ(munmap(p, page), 0);
  value = 99;
  EXPECT_FALSE(read_word(reinterpret_cast<uintptr_t>(p) + sizeof(uintptr_t), value)) << "an address gone";
  EXPECT_FALSE(read_word(0, value)) << "address 0";
}

// Another thread maps and unmaps regions that look like glibc's mmapped chunks
// (a zero word, then the size marked mmapped) as fast as it can, while the
// held memory is read again and again: no read may fault.
TEST(GlibcHeap, HeldIsReadWhileAnotherThreadUnmaps) {
  std::atomic<bool> stop{false};
  std::atomic<long> churned{0};
  std::thread churn([&] {
    const size_t size = 16 * 4096;
    while (!stop.load(std::memory_order_relaxed)) {
      void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) continue;
      static_cast<uintptr_t*>(p)[0] = 0;
      static_cast<uintptr_t*>(p)[1] = size | 2;
      munmap(p, size);
      churned.fetch_add(1, std::memory_order_relaxed);
    }
  });
  int reads = 0;
  for (; reads < 3000; ++reads) EXPECT_TRUE(glibc_heap_held().valid);
  stop = true;
  churn.join();
  EXPECT_EQ(reads, 3000);
  EXPECT_GT(churned.load(), 1000) << "the other thread must have unmapped while the reads ran";
}

}  // namespace
