// stamp_threads.h — what every STAMP app allocates from STAMP's lib/ besides its
// data structures: the random generator's state, and the blocks STAMP's thread
// pool allocates when it starts
// (lib/thread.c's thread_startup: one 152-byte barrier per thread, then 8
// bytes per thread for the ids and for the thread handles) and frees when it
// shuts down. Apps allocate them where STAMP does, so their figures include
// them as STAMP's do; the threads themselves are std::threads.
#pragma once
#include <cstdlib>
#include <random>

namespace allocstamp::stamp {

// Tells the compiler a block is used, so it keeps an allocation STAMP makes
// even where allocstamp never reads the block (GCC removes a malloc/free pair
// whose block does not escape).
inline void keep(const void* block) { asm volatile("" : : "g"(block) : "memory"); }

// STAMP's random_t: a function pointer and a 5000-byte MT19937 state (5008
// bytes); random_alloc() seeds it with 0.
struct StampRandom {
  unsigned long (*unused)(unsigned long*, unsigned long*) = nullptr;
  std::mt19937 mt{0};
  unsigned long operator()() { return mt(); }
};

struct StampThreadBlocks {
  void* barrier = nullptr;
  long* ids = nullptr;
  unsigned long* handles = nullptr;
};

inline StampThreadBlocks stamp_thread_startup(long threads) {
  constexpr std::size_t kBarrierBytes = 152;  // mutex + two condition variables + two longs
  StampThreadBlocks b;
  b.barrier = std::malloc(std::size_t(threads) * kBarrierBytes);
  b.ids = static_cast<long*>(std::malloc(std::size_t(threads) * sizeof(long)));
  b.handles = static_cast<unsigned long*>(std::malloc(std::size_t(threads) * sizeof(unsigned long)));
  for (long i = 0; i < threads; ++i) b.ids[i] = i;
  keep(b.barrier), keep(b.ids), keep(b.handles);
  return b;
}

inline void stamp_thread_shutdown(StampThreadBlocks& b) {
  std::free(b.barrier);
  std::free(b.ids);
  std::free(b.handles);
  b = StampThreadBlocks{};
}

}  // namespace allocstamp::stamp
