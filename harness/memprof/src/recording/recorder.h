// recorder.h — the accounting behind every hook: the region of each event,
// its counters, and the block's sizes and heap change. The functions here run
// on the malloc path: they touch thread-local state (thread_state.h) and, at
// most once per `slack` bytes of net change, publish to process-wide atomics
// (heap.h). No lock, no allocation, no I/O.
//
// Sections, in the order a call meets them: the accounting of a call and its
// block; and the hot path nearly every malloc and free takes (one load says
// whether it may run: thread attached, not nested, no libitm, no scope or
// pending event; then the block is counted and remembered with no lock and no
// branch on its size; anything unusual leaves through a tail call into
// recorder.cpp that finishes the hook's work, so the hot path keeps few
// registers of its own).
#pragma once
#include <stddef.h>
#include <stdint.h>

#include <atomic>

#include "base/options.h"
#include "base/saturating.h"
#include "os/real.h"
#include "recording/counters.h"
#include "recording/heap.h"
#include "recording/registry.h"
#include "recording/shadow.h"
#include "recording/thread_state.h"
#include "recording/tx_set.h"
#include "recording/usable.h"

namespace memprof {

// ---- the accounting ----

// The thread's transactional free set (recorder.cpp), `slow` kept current.
void tx_set_add(ThreadState& t, void* p);
bool tx_set_take(ThreadState& t, void* p);
void tx_set_clear(ThreadState& t);

// An allocation of n requested bytes in region r: its count, bytes and size bin.
// libitm's own blocks have counters of their own.
inline void count_allocation(ThreadState& t, int r, size_t n) {
  if (__builtin_expect(r == kTmInternal, 0)) {
    bump(t.c.allocs_tm_internal_count);
    saturating::bump(t.c.requested_tm_internal_bytes, n);
    bump(t.c.histogram_tm_internal()[size_bin(n)]);
    return;
  }
  bump(t.c.allocs()[r]);
  saturating::bump(t.c.requested()[r], n);
  bump(t.c.histogram()[size_bin(n)]);
  t.sample_left -= int64_t(n);  // sampling.h: below zero, the block is sampled once remembered
}

// realloc(p, n) with both non-zero, in region r; `moved`: a new address.
inline void count_realloc(ThreadState& t, int r, size_t n, bool moved) {
  if (__builtin_expect(r == kTmInternal, 0)) {
    saturating::bump(t.c.requested_tm_internal_bytes, n);  // libitm growing its own logs
    return;
  }
  bump(t.c.reallocs_count);
  saturating::bump(t.c.requested()[r], n);
  if (moved) bump(t.c.realloc_moves_count);
}

// An allocation of n requested bytes on the hot path (region seq or par, never
// libitm's): its count, bytes and sampling countdown. Its size bin is counted
// by class (by_class) or, on the hot path's rare exits, by alloc_heap_rare.
inline void count_hot_allocation(ThreadState& t, int r, size_t n) {
  bump(t.c.allocs()[r]);
  saturating::bump(t.c.requested()[r], n);
  t.sample_left -= int64_t(n);  // sampling.h: below zero, the block is sampled once remembered
}

// An allocating entry point was called from `code` (hooks.cpp, MEMPROF_NOTE_CALLER).
inline void note_caller(ThreadState& t, const void* code) {
  if (t.depth == 0) t.from_libitm = in_libitm(code);
}

// The transactional state libitm reports: 0 outside, 1 retryable, 2 irrevocable.
inline int tm_state() { return real.in_transaction ? real.in_transaction() : 0; }

// The region of a call that is no allocation (the allocator's kernel calls):
// inside a transaction (one the program marked, or libitm's, retryable or
// irrevocable) tx, else the region allocations outside transactions take.
inline int call_region(const ThreadState& t) {
  if (t.tx_marked != 0) return kTx;
  if (shared.tm_loaded.load(std::memory_order_relaxed) && tm_state() != 0) return kTx;
  return shared.region.load(std::memory_order_relaxed);
}

inline bool careful(const ThreadState& t) {
  return __builtin_expect((t.slow != 0) | shared.tm_loaded.load(std::memory_order_relaxed) | shared.tracing, 0);
}

// realloc(p, n) with p not null, in two steps around the allocator's call:
// what memprof knew of p (taken out of the shadow before the allocator can
// reuse p), then every outcome — failure, release (n == 0), resize or move.
struct ReallocOld {
  size_t n, usable;
  bool known, odd;
};
ReallocOld record_realloc_begin(void* p);
void record_realloc_end(ThreadState& t, void* p, void* q, size_t n, const ReallocOld& old);

// The careful paths (recorder.cpp): unattached threads, libitm, scopes,
// exited threads, failures.
void record_alloc_careful(ThreadState& t, void* p, size_t n, bool plain);
bool record_free_careful(ThreadState& t, void* p);
int account_free(ThreadState& t, void* p, size_t n, size_t u);  // returns the region counted
// The first allocation inside the operator new the program called
// (t.new_request) is held, not recorded: it is the operator's block only if the
// operator returns it (libstdc++'s calls malloc, perhaps with another size), and
// counted_new decides once it has. An allocator's own operator new may allocate
// for itself through the exported malloc first: scudo's, when GWP-ASan samples
// the block, calls glibc's backtrace(), whose first call dlopens libgcc_s, and
// ld.so's malloc is memprof's; that block is dropped, never the program's. An
// operator new that throws never returns: what it held is then its exception
// object (libstdc++'s __cxa_allocate_exception calls malloc), the program's,
// recorded by settle_held. Later allocations inside count as before (an inner
// failure clears new_request too, and the retry after it is counted alone).
inline void hold_new_block(ThreadState& t, void* p, size_t n, bool plain) {
  t.new_request = 0;
  t.new_held = p;
  t.new_held_n = n;
  t.new_held_plain = plain;
}
// A block still held once its operator new is gone (it threw) is recorded as
// an allocation of its own: at the thread's next operator new, at its free
// (forget_held), or when the thread ends.
void settle_held(ThreadState& t);
// shadow::forget() for a block memprof does not know: if it is the held one,
// settles it first.
bool forget_held(ThreadState& t, void* p, size_t* size, bool* odd);
int alloc_region(ThreadState& t, size_t n, void* p);
// realloc moved p: a block of libitm's own is known by its new address only.
void forget_tm_internal(ThreadState& t, void* p);

// sampling::take (sampling.cpp): the block took the countdown below zero.
void sample_block(ThreadState& t, void* p, size_t n);
// sampling::on_odd_free: an odd block is about to be freed.
void sampled_free(const void* p, size_t n);

// Keeps a new block's size in the shadow and adds it to the thread's heap
// change; a block the shadow cannot take is only counted as untracked.
inline void remember_block(ThreadState& t, void* p, size_t n, size_t u, bool odd) {
  if (__builtin_expect(!shadow::remember(p, n, odd), 0)) {
    bump(t.c.allocs_untracked_count);
    return;
  }
  saturating::bump(t.c.usable_total_bytes, u);
  heap_grow(t, int64_t(n), int64_t(u));
  if (__builtin_expect(t.sample_left < 0, 0)) sample_block(t, p, n);
}

// A block of `n` requested bytes came back from the allocator (p may be null).
// `plain`: from malloc, calloc or a non-aligned operator new (usable.h).
inline void record_alloc(ThreadState& t, void* p, size_t n, bool plain) {
  if (__builtin_expect(t.new_request != 0, 0)) {  // inside operator new (counted_new)
    if (p) hold_new_block(t, p, n, plain);
    else t.new_request = 0;  // operator new retries or throws; it counts the failure itself
    return;
  }
  if (careful(t) || __builtin_expect(p == nullptr, 0)) {
    record_alloc_careful(t, p, n, plain);
    return;
  }
  int r = shared.region.load(std::memory_order_relaxed);
  count_allocation(t, r, n);
  if (!options.track_heap) return;
  bool odd;
  size_t u = usable::of_new_block(p, n, plain, &odd, t.memo_countdown);
  remember_block(t, p, n, u, odd);
}

// `p` (not null) is about to be released; call before the allocator frees it.
// False when memprof never saw the block.
inline bool record_free(ThreadState& t, void* p) {
  if (careful(t)) return record_free_careful(t, p);
  if (!options.track_heap) {
    if (__builtin_expect(is_bootstrap(p), 0)) return false;
    bump(t.c.frees()[shared.region.load(std::memory_order_relaxed)]);
    return true;
  }
  size_t n;
  bool odd;
  if (__builtin_expect(!shadow::forget(p, &n, &odd), 0) && !forget_held(t, p, &n, &odd)) {
    if (t.teardown == 0) bump(t.c.frees_untracked_count);
    return false;
  }
  if (__builtin_expect(odd, 0)) sampled_free(p, n);
  bump(t.c.frees()[shared.region.load(std::memory_order_relaxed)]);
  heap_shrink(t, int64_t(n), int64_t(usable::of_freed_block(p, n, odd)));
  return true;
}

// ---- the hot path (hooks.cpp) ----

inline bool on_hot_path(const ThreadState& t) {
  return __builtin_expect(t.gate == 0, 1) && __builtin_expect(shared.hot.load(std::memory_order_relaxed), 1);
}

// Rare exits of hot_alloc_done; each ends the hook (depth 0) and returns p.
void* alloc_rare(ThreadState& t, void* p, size_t n, bool plain);       // nothing recorded yet
void* alloc_heap_rare(ThreadState& t, void* p, size_t n, bool plain);  // counted; its bin and the heap part left
void* alloc_publish(ThreadState& t, void* p);                          // all done but publishing

// The allocator returned p for a request of n bytes; `plain` as in usable.h.
// Called with depth 1 on the hot path; ends the hook.
__attribute__((always_inline)) inline void* hot_alloc_done(ThreadState& t, void* p, size_t n, bool plain) {
  if (__builtin_expect((p == nullptr) | (t.new_request != 0), 0)) return alloc_rare(t, p, n, plain);
  int r = shared.region.load(std::memory_order_relaxed);
  count_hot_allocation(t, r, n);
  HeapMode mode = shared.mode;
  size_t u = 0;
  size_t c = usable::memo_index(n);  // its class, when n <= usable::kMemoMax
  if (__builtin_expect(mode == kHeapMemo, 1)) {  // every allocator but glibc, by default
    if (__builtin_expect(!plain | (n > usable::kMemoMax), 0)) return alloc_heap_rare(t, p, n, plain);
    u = __atomic_load_n(&usable::memo[c].at_alloc, __ATOMIC_ACQUIRE);
    if (__builtin_expect(u == 0, 0) || usable::due_for_check(t.memo_countdown, p))
      return alloc_heap_rare(t, p, n, plain);
    if (__builtin_expect((!shadow::remember_inline(p, n, false)) | (t.sample_left < 0), 0))
      return alloc_heap_rare(t, p, n, plain);  // also a block to sample: remembered there through remember_block
    bump(t.by_class[c]);  // its bin, and u (= the memo's at_free) in usable_total_bytes
  } else if (mode == kCountsOnly) {
    if (__builtin_expect(n <= usable::kMemoMax, 1)) bump(t.by_class[c]);
    else bump(t.c.histogram()[size_bin(n)]);
    t.depth = 0;
    return p;
  } else {
    if (__builtin_expect(n > shadow::kInlineMax, 0)) return alloc_heap_rare(t, p, n, plain);
    if (mode == kHeapGlibc) {
      u = usable::glibc_usable_size(p);
      if (__builtin_expect(u > size_t(kMaxLaneChange), 0)) return alloc_heap_rare(t, p, n, plain);
    }
    if (__builtin_expect((!shadow::remember_inline(p, n, false)) | (t.sample_left < 0), 0))
      return alloc_heap_rare(t, p, n, plain);  // also a block to sample: remembered there through remember_block
    if (__builtin_expect(n <= usable::kMemoMax, 1)) bump(t.by_class[c]);  // its bin only
    else bump(t.c.histogram()[size_bin(n)]);
    saturating::bump(t.c.usable_total_bytes, u);
  }
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
