// usable.cpp — the memo's slow paths: asking the allocator, filling an entry,
// the periodic check, and switching the memo off for good if a check fails.
#include "recording/usable.h"

#include <atomic>

namespace memprof::usable {

constinit MemoEntry memo[kMemoEntries];

namespace {
constinit std::atomic<uint64_t> mismatch_count{0};
constinit std::atomic<bool> memo_off{false};

// An allocator that is not size-class-deterministic: count it, and stop
// serving new blocks from the memo (blocks already counted keep their entry).
void found_mismatch() {
  mismatch_count.fetch_add(1, std::memory_order_relaxed);
  if (memo_off.exchange(true, std::memory_order_seq_cst)) return;
  for (MemoEntry& e : memo) __atomic_store_n(&e.at_alloc, uint16_t(0), __ATOMIC_RELAXED);
}
}  // namespace

size_t ask(void* p, size_t n, bool* odd) {
  size_t u = real.malloc_usable_size(p);
  // 0 is also what an unfilled entry holds: such a block must be asked again.
  *odd = n <= kMemoMax && (u == 0 || __atomic_load_n(at_free(n), __ATOMIC_ACQUIRE) != u);
  return u;
}

size_t fill_or_check(void* p, size_t n, bool* odd) {
  // Once the memo is off no block is checked: each is asked, and marked odd
  // where the memo's at_free differs. Checking on would count a mismatch for
  // every other block, each with two atomic read-modify-writes of lines every
  // thread shares (scudo, whose usable size is the size asked: 96 ns a
  // malloc/free pair on churn).
  if (memo_off.load(std::memory_order_relaxed)) return ask(p, n, odd);
  size_t u = real.malloc_usable_size(p);
  if (u == 0 || u > UINT16_MAX) {  // cannot be an entry (0 means "not known yet")
    *odd = true;
    return u;
  }
  // The check passing is the common case: then nothing is written, so the
  // memo's cache line stays shared by every thread reading it (a locked
  // compare-exchange would take it from them and drain this thread's stores).
  if (__atomic_load_n(at_free(n), __ATOMIC_ACQUIRE) == u && __atomic_load_n(at_alloc(n), __ATOMIC_ACQUIRE) == u) {
    *odd = false;
    return u;
  }
  uint16_t known = 0;
  if (!__atomic_compare_exchange_n(at_free(n), &known, uint16_t(u), false, __ATOMIC_RELEASE,
                                   __ATOMIC_ACQUIRE) &&
      known != u) {
    found_mismatch();
    *odd = true;
    return u;
  }
  if (!memo_off.load(std::memory_order_seq_cst)) {
    __atomic_store_n(at_alloc(n), uint16_t(u), __ATOMIC_SEQ_CST);
    // A mismatch found meanwhile on another thread cleared the memo before
    // this store: clear this entry too, so that the memo stays off.
    if (memo_off.load(std::memory_order_seq_cst)) __atomic_store_n(at_alloc(n), uint16_t(0), __ATOMIC_SEQ_CST);
  }
  *odd = false;
  return u;
}

uint64_t mismatches() { return mismatch_count.load(std::memory_order_relaxed); }

}  // namespace memprof::usable
