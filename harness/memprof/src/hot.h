// hot.h — the path nearly every malloc and free takes. One load says whether it
// may run (thread attached, not nested, no libitm, no scope or pending event);
// then the block is counted and remembered with no lock, and no branch on its
// size. Anything unusual leaves through a tail call that finishes the hook's
// work (recorder.cpp), so the hot path keeps few registers of its own.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "recorder.h"

namespace memprof {

inline bool on_hot_path(const ThreadState& t) {
  return __builtin_expect(t.gate == 0, 1) && __builtin_expect(shared.hot.load(std::memory_order_relaxed), 1);
}

// Rare exits of hot_alloc_done; each ends the hook (depth 0) and returns p.
void* alloc_rare(ThreadState& t, void* p, size_t n, bool plain);       // nothing recorded yet
void* alloc_heap_rare(ThreadState& t, void* p, size_t n, bool plain);  // counted; the heap part left
void* alloc_publish(ThreadState& t, void* p);                          // all done but publishing

// The allocator returned p for a request of n bytes; `plain` as in usable.h.
// Called with depth 1 on the hot path; ends the hook.
inline void* hot_alloc_done(ThreadState& t, void* p, size_t n, bool plain) {
  if (__builtin_expect((p == nullptr) | (t.new_request != 0), 0)) return alloc_rare(t, p, n, plain);
  int r = shared.region.load(std::memory_order_relaxed);
  count_allocation(t, r, n);
  HeapMode mode = shared.mode;
  size_t u = 0;
  if (__builtin_expect(mode == kHeapMemo, 1)) {  // every allocator but glibc, by default
    if (__builtin_expect(!plain | (n > usable::kMemoMax), 0)) return alloc_heap_rare(t, p, n, plain);
    u = __atomic_load_n(usable::at_alloc(n), __ATOMIC_ACQUIRE);
    if (__builtin_expect(u == 0, 0) || usable::due_for_check(t.memo_countdown, p))
      return alloc_heap_rare(t, p, n, plain);
  } else if (mode == kCountsOnly) {
    t.depth = 0;
    return p;
  } else {
    if (__builtin_expect(n > shadow::kInlineMax, 0)) return alloc_heap_rare(t, p, n, plain);
    if (mode == kHeapGlibc) {
      u = usable::glibc_usable_size(p);
      if (__builtin_expect(u > size_t(kMaxLaneChange), 0)) return alloc_heap_rare(t, p, n, plain);
    }
  }
  if (__builtin_expect((!shadow::remember_inline(p, n, false)) | (t.sample_left < 0), 0))
    return alloc_heap_rare(t, p, n, plain);  // also a block to sample: remembered there through remember_block
  bump(t.c.usable_total_bytes, u);
  // n is at most shadow::kInlineMax here, and u at most kMaxLaneChange: within a lane.
  if (__builtin_expect(lanes_add(t.local, t.local_max, int32_t(n), int32_t(u), 1, shared.grow_limit), 0))
    return alloc_publish(t, p);
  t.depth = 0;
  return p;
}

// What a hook does after hot_free_record.
enum class FreeStep : uint8_t {
  kRelease,             // counted: free the block
  kReleaseThenPublish,  // counted: free the block, then publish the thread's heap change
  kAskUsable,           // forgotten (n beyond the memo, or usable beyond a lane): ask the allocator first
  kGeneral,             // unknown, odd or spilled; nothing changed: take the general path
};

struct FreeRecord {
  FreeStep step;
  size_t n;  // the block's requested size (kAskUsable)
};

// p (not null) is about to be freed, on the hot path: forgets and counts it.
// No calls: what needs one is left to the caller (FreeStep).
inline FreeRecord hot_free_record(ThreadState& t, void* p) {
  HeapMode mode = shared.mode;
  int r = shared.region.load(std::memory_order_relaxed);
  if (__builtin_expect(mode == kCountsOnly, 0)) {
    if (__builtin_expect(is_bootstrap(p), 0)) return {FreeStep::kGeneral, 0};
    bump(t.c.frees()[r]);
    return {FreeStep::kRelease, 0};
  }
  size_t n;
  if (__builtin_expect(!shadow::forget_plain(p, &n), 0)) return {FreeStep::kGeneral, 0};
  size_t u = 0;
  if (__builtin_expect(mode == kHeapMemo, 1)) {
    if (__builtin_expect(n > usable::kMemoMax, 0)) return {FreeStep::kAskUsable, n};
    u = __atomic_load_n(usable::at_free(n), __ATOMIC_ACQUIRE);
  } else if (mode == kHeapGlibc) {
    // A small block glibc served from its own mapping (an aligned one, or one a
    // realloc shrank in place) may hold far more than a lane takes at once.
    u = usable::glibc_usable_size(p);
    if (__builtin_expect(u > size_t(kMaxLaneChange), 0)) return {FreeStep::kAskUsable, n};
  }
  bump(t.c.frees()[r]);
  if (__builtin_expect(lanes_sub(t.local, int32_t(n), int32_t(u), 1, shared.shrink_limit), 0))
    return {FreeStep::kReleaseThenPublish, n};
  return {FreeStep::kRelease, n};
}

// The rare steps after hot_free_record (recorder.cpp for free; counted_delete has its
// own). Each holds the nesting guard, frees the block and ends the hook.
void free_publish(ThreadState& t, void* p);
void account_asked_free(ThreadState& t, void* p, size_t n);
void free_ask_usable(ThreadState& t, void* p, size_t n);

}  // namespace memprof
