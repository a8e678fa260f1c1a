// stamp_support.h — what every STAMP app needs besides its data structures:
// the random generator's state and the blocks STAMP's thread pool allocates
// when it starts
// (lib/thread.c's thread_startup: one 152-byte barrier per thread, then 8
// bytes per thread for the ids and for the thread handles) and frees when it
// shuts down, allocated where STAMP does so the figures include them as
// STAMP's do (the threads themselves are std::threads); and the list of
// blocks STAMP never frees, kept outside the heap so the app can free them
// after its measured phase.
#pragma once
#include <sys/mman.h>

#include <cstdlib>
#include <new>
#include <random>
#include <type_traits>

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

// random_alloc and random_free: one malloc'd block, as STAMP's (and freed
// with free, by NeverFreed too: the generator needs no destructor).
inline StampRandom* stamp_random_new() {
  void* block = std::malloc(sizeof(StampRandom));
  if (!block) std::abort();
  return new (block) StampRandom;
}
static_assert(std::is_trivially_destructible_v<StampRandom>, "freed without a destructor");
inline void stamp_random_delete(StampRandom* random) { std::free(random); }

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

// Blocks the original never frees: remembered (in memory mapped outside the
// heap, so remembering allocates nothing the figures see) until the measured
// phase has ended, then freed. Adding is a store and an increment, so it may
// run inside a transaction (an aborted attempt's additions roll back).
class NeverFreed {
 public:
  explicit NeverFreed(std::size_t capacity) : capacity_(capacity) {
    void* p = mmap(nullptr, capacity * sizeof(void*), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    blocks_ = p == MAP_FAILED ? nullptr : static_cast<void**>(p);
    if (!blocks_) std::abort();
  }
  ~NeverFreed() { munmap(blocks_, capacity_ * sizeof(void*)); }
  NeverFreed(const NeverFreed&) = delete;
  NeverFreed& operator=(const NeverFreed&) = delete;
  void add(void* block) {
    if (count_ == capacity_) std::abort();  // capacity is the app's bound on what it leaks
    blocks_[count_++] = block;
  }
  std::size_t size() const { return count_; }
  void* operator[](std::size_t i) const { return blocks_[i]; }
  // Frees every block remembered (after the measured phase).
  void free_all() {
    for (std::size_t i = 0; i < count_; ++i) std::free(blocks_[i]);
    count_ = 0;
  }

 private:
  void** blocks_;
  std::size_t capacity_;
  std::size_t count_ = 0;
};

}  // namespace allocstamp::stamp
