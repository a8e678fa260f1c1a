// hot.cpp — the rare exits of the hot path (hot.h): a failed or nested-new
// allocation, a block the usable-size memo or the shadow cannot take at once,
// and publishing a thread's heap change. Each finishes the hook (the free side
// frees the block too).
#include "hot.h"

namespace memprof {

void* alloc_rare(ThreadState& t, void* p, size_t n, bool plain) {
  record_alloc(t, p, n, plain);
  t.depth = 0;
  return p;
}

void* alloc_heap_rare(ThreadState& t, void* p, size_t n, bool plain) {
  bool odd = false;
  size_t u = 0;
  if (shared.mode == kHeapMemo) {
    u = usable::of_new_block_rare(p, n, plain, &odd);
  } else if (shared.mode == kHeapGlibc) {
    u = usable::glibc_usable_size(p);
  }
  if (!shadow::remember(p, n, odd)) {
    bump(t.c.allocs_untracked_count);
  } else {
    bump(t.c.usable_total_bytes, u);
    heap_grow(t, int64_t(n), int64_t(u));
  }
  t.depth = 0;
  return p;
}

void* alloc_publish(ThreadState& t, void* p) {
  publish(t);
  t.depth = 0;
  return p;
}

// Counts the free of a block the memo cannot vouch for (its usable size is
// asked before the allocator takes it back).
void account_asked_free(ThreadState& t, void* p, size_t n) {
  size_t u = real.malloc_usable_size(p);
  bump(t.c.frees()[shared.region.load(std::memory_order_relaxed)]);
  heap_shrink(t, int64_t(n), int64_t(u));
}

void free_publish(ThreadState& t, void* p) {
  t.depth = 1;
  real.free(p);
  publish(t);
  t.depth = 0;
}

void free_ask_usable(ThreadState& t, void* p, size_t n) {
  t.depth = 1;
  account_asked_free(t, p, n);
  real.free(p);
  t.depth = 0;
}

}  // namespace memprof
