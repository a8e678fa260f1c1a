// recorder.cpp — the slow paths of the accounting: the careful paths (libitm,
// marked transactions, scopes, unattached or exited threads), realloc's
// outcomes, the transactional free set, and the hot path's rare exits.
#include "recording/recorder.h"

#include "recording/sampling.h"
#include "recording/scopes.h"
#include "recording/totals.h"
#include "recording/trace.h"

namespace memprof {

int alloc_region(ThreadState& t, size_t n, void* p) {
  bool from_libitm = t.from_libitm;
  t.from_libitm = false;
  if (t.itm_pending != 0 && t.itm_pending == n + 1) {
    t.itm_pending = 0;  // the program's block; what libitm allocates next is its own
    trace::note_call(t, allocstamp::trace::kTmMalloc);
    tx_set_add(t, p);   // refreshes `slow`
    return kTx;
  }
  if (t.tx_marked != 0) return kTx;
  int state = from_libitm ? 1 : tm_state();  // libitm's own block, in a transaction or not
  if (state == 2) return kTx;
  if (state == 1 || t.in_tm_runtime != 0) {
    // libitm frees its own blocks after commit too: known by address, not by state.
    tx_set_insert(t.tm_internal, p, false);
    return kTmInternal;
  }
  return shared.region.load(std::memory_order_relaxed);
}

void forget_tm_internal(ThreadState& t, void* p) {
  if (t.tm_internal.count != 0) tx_set_remove(t.tm_internal, p);
}

static int free_region(ThreadState& t, void* p) {
  if (t.tx_set.count != 0 && tx_set_take(t, p)) return kTx;
  if (t.tm_internal.count != 0 && tx_set_remove(t.tm_internal, p)) {
    if (t.status == kExited && t.tm_internal.count == 0) tx_set_release(t.tm_internal);  // libitm's last, after exit
    return kTmInternal;
  }
  if (t.tx_marked != 0) return kTx;
  int state = tm_state();
  if (state == 2) return kTx;
  if (state == 1) return kTmInternal;
  return shared.region.load(std::memory_order_relaxed);
}

static void count_free(ThreadState& t, int r) {
  if (r == kTmInternal) bump(t.c.frees_tm_internal_count);
  else bump(t.c.frees()[r]);
}

void record_alloc_careful(ThreadState& t, void* p, size_t n, bool plain) {
  if (t.status == kNew) thread_attach(t);
  if (t.status == kForeign) return;  // not the program's thread: from now on bypassed as nested
  if (!p) {
    bump(t.c.allocs_failed_count);
    trace::on_alloc(t, nullptr, n, shared.region.load(std::memory_order_relaxed));
    return;
  }
  int r = alloc_region(t, n, p);
  count_allocation(t, r, n);
  trace::on_alloc(t, p, n, r);
  if (options.track_heap) {
    bool odd;
    size_t u = usable::of_new_block(p, n, plain, &odd, t.memo_countdown);
    remember_block(t, p, n, u, odd);
  }
  if (t.scope_depth != 0) scope_note_alloc(t, n);
  if (t.status == kExited) merge_exited(t);
}

int account_free(ThreadState& t, void* p, size_t n, size_t u) {
  int r = free_region(t, p);
  count_free(t, r);
  heap_shrink(t, int64_t(n), int64_t(u));
  if (t.scope_depth != 0) scope_note_free(t, n);
  return r;
}

bool record_free_careful(ThreadState& t, void* p) {
  if (t.status == kNew) thread_attach(t);
  if (t.status == kForeign) return true;  // forwarded uncounted, as a nested free
  if (!options.track_heap) {
    if (is_bootstrap(p)) return false;
    int r = free_region(t, p);
    count_free(t, r);
    trace::on_free(t, p, 0, r, true);
    if (t.status == kExited) merge_exited(t);
    return true;
  }
  size_t n;
  bool odd;
  bool known = shadow::forget(p, &n, &odd) || forget_held(t, p, &n, &odd);
  if (known && odd) sampled_free(p, n);
  if (!known) {
    if (t.teardown == 0) {
      bump(t.c.frees_untracked_count);
      trace::on_free(t, p, 0, shared.region.load(std::memory_order_relaxed), false);
    }
  } else {
    int r = account_free(t, p, n, usable::of_freed_block(p, n, odd));
    trace::on_free(t, p, n, r, true);
  }
  if (t.status == kExited) merge_exited(t);
  return known;
}

ReallocOld record_realloc_begin(void* p) {
  ReallocOld old{0, 0, false, false};
  if (!options.track_heap) return old;
  old.known = shadow::forget(p, &old.n, &old.odd) || forget_held(self, p, &old.n, &old.odd);
  if (old.known && old.odd) sampled_free(p, old.n);  // realloc moves or resizes it: the sample ends here
  if (old.known) old.usable = usable::of_freed_block(p, old.n, old.odd);
  return old;
}

static void realloc_outcome(ThreadState& t, void* p, void* q, size_t n, const ReallocOld& old) {
  if (!options.track_heap) {  // counts only
    if (!q && n != 0) {
      bump(t.c.allocs_failed_count);
      trace::on_realloc(t, p, nullptr, n, shared.region.load(std::memory_order_relaxed));
    } else if (n == 0) {
      int r = shared.region.load(std::memory_order_relaxed);
      bump(t.c.frees()[r]);
      trace::on_free(t, p, 0, r, true);
      if (q) record_alloc(t, q, 0, false);
    } else {
      if (q != p) forget_tm_internal(t, p);
      int r = alloc_region(t, n, q);
      count_realloc(t, r, n, q != p);
      if (t.scope_depth != 0 && r != kTmInternal) scope_note_realloc(t, n, 0);  // the old size is not known
      trace::on_realloc(t, p, q, n, r);
    }
    return;
  }
  if (!q && n != 0) {  // failed: p is untouched
    if (old.known) shadow::restore(p, old.n, old.odd);
    bump(t.c.allocs_failed_count);
    trace::on_realloc(t, p, nullptr, n, shared.region.load(std::memory_order_relaxed));
    return;
  }
  if (n == 0) {
    // p is released; some allocators hand back a fresh minimal block.
    if (old.known) {
      int r = account_free(t, p, old.n, old.usable);
      trace::on_free(t, p, old.n, r, true);
    } else {
      bump(t.c.frees_untracked_count);
      trace::on_free(t, p, 0, shared.region.load(std::memory_order_relaxed), false);
    }
    if (q) record_alloc(t, q, 0, false);
    return;
  }
  if (q != p) forget_tm_internal(t, p);
  int r = alloc_region(t, n, q);
  count_realloc(t, r, n, q != p);
  if (t.scope_depth != 0 && r != kTmInternal) scope_note_realloc(t, n, old.known ? old.n : 0);
  trace::on_realloc(t, p, q, n, r);
  // A block resized in place may keep more than its size class: not plain.
  bool odd;
  size_t u = usable::of_new_block(q, n, false, &odd, t.memo_countdown);
  if (shadow::remember(q, n, odd)) {
    if (old.known) {
      heap_change(t, int64_t(n) - int64_t(old.n), int64_t(u) - int64_t(old.usable), 0);
    } else {
      heap_change(t, int64_t(n), int64_t(u), 1);
    }
    if (u > old.usable) saturating::bump(t.c.usable_total_bytes, u - old.usable);
    // For sampling the new block is an allocation of n bytes, as jemalloc's
    // profiler counts a realloc (the old block's sample ended in record_realloc_begin).
    if (r != kTmInternal) {
      t.sample_left -= int64_t(n);
      if (__builtin_expect(t.sample_left < 0, 0)) sample_block(t, q, n);
    }
  } else if (old.known) {
    heap_change(t, -int64_t(old.n), -int64_t(old.usable), -1);
  }
}

void record_realloc_end(ThreadState& t, void* p, void* q, size_t n, const ReallocOld& old) {
  realloc_outcome(t, p, q, n, old);
  if (__builtin_expect(t.status == kExited, 0)) merge_exited(t);
}

void settle_held(ThreadState& t) {
  void* p = t.new_held;
  t.new_held = nullptr;
  // An allocation of its own, from malloc, whatever call is in progress (its
  // op, and the operator new it may be inside, are kept).
  uint8_t op = t.call_op;
  uint32_t extra = t.call_extra;
  uint64_t request = t.new_request;
  t.new_request = 0;
  ++t.depth;
  trace::note_call(t, trace::kMalloc);
  record_alloc(t, p, t.new_held_n, t.new_held_plain);
  --t.depth;
  t.new_request = request;
  t.call_op = op;
  t.call_extra = extra;
}

bool forget_held(ThreadState& t, void* p, size_t* size, bool* odd) {
  if (p != t.new_held) return false;  // p is never null here
  settle_held(t);
  return shadow::forget(p, size, odd);
}

void sample_block(ThreadState& t, void* p, size_t n) { sampling::take(t, p, n); }
void sampled_free(const void* p, size_t n) { sampling::on_odd_free(p, n); }

void tx_set_add(ThreadState& t, void* p) {
  if (!p) return;
  // Unmappable memory (never seen) would lose this block's region, not a count.
  if (tx_set_insert(t.tx_set, p)) refresh_slow(t);
}

bool tx_set_take(ThreadState& t, void* p) {
  if (!tx_set_remove(t.tx_set, p)) return false;
  refresh_slow(t);
  return true;
}

void tx_set_clear(ThreadState& t) {
  tx_set_reset(t.tx_set);
  refresh_slow(t);
}

// --- the rare exits of the hot path (recorder.h): a failed or nested-new
// allocation, a block the usable-size memo or the shadow cannot take at once,
// and publishing. Each finishes the hook (the free side frees the block too).
void* alloc_rare(ThreadState& t, void* p, size_t n, bool plain) {
  record_alloc(t, p, n, plain);
  t.depth = 0;
  return p;
}

void* alloc_heap_rare(ThreadState& t, void* p, size_t n, bool plain) {
  bump(t.c.histogram()[size_bin(n)]);  // not counted by class (hot_alloc_done)
  bool odd = false;
  size_t u = 0;
  if (shared.mode == kHeapMemo) {
    u = usable::of_new_block_rare(p, n, plain, &odd);
  } else if (shared.mode == kHeapGlibc) {
    u = usable::glibc_usable_size(p);
  }
  remember_block(t, p, n, u, odd);
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
