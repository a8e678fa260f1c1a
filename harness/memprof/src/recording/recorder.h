// recorder.h — the accounting behind every hook: per-thread counters, the region
// of each event, and the heap figures. The functions here run on the malloc
// path: they touch thread-local state and, at most once per `slack` bytes of net
// change, publish to process-wide atomics. No lock, no allocation, no I/O.
//
// Peak bound: a thread keeps up to `slack` bytes (and slack/64 blocks) of net
// change local and remembers the highest local value since it last published;
// on publishing, the candidate peak is published_total_before + local_max. With
// one thread alive this is exact; with N > 1 alive at once the true peak is
// within (N + 1) * slack of the figure (heap_peak_error_bytes states it).
//
// Sections, in the order a call meets them: the heap lanes (a thread's
// unpublished heap change as one 16-byte vector of 32-bit lanes: requested
// bytes, usable bytes, blocks; one add, one max and one compare serve all three
// on every malloc and free, SSE2 on x86-64); the thread's state and the
// accounting; and the hot path nearly every malloc and free takes (one load
// says whether it may run: thread attached, not nested, no libitm, no scope or
// pending event; then the block is counted and remembered with no lock and no
// branch on its size; anything unusual leaves through a tail call into
// recorder.cpp that finishes the hook's work, so the hot path keeps few
// registers of its own).
#pragma once
#include <stddef.h>
#include <stdint.h>

#include <atomic>

#if defined(__x86_64__)
#include <emmintrin.h>
#if defined(__SSE4_1__)
#include <smmintrin.h>
#endif
#endif

#include "recording/counters.h"
#include "base/options.h"
#include "base/saturating.h"
#include "os/real.h"
#include "recording/shadow.h"
#include "recording/tx_set.h"
#include "recording/usable.h"

namespace memprof {

// ---- the heap lanes ----

// Lanes stay far from overflow: a thread publishes once a lane passes the
// slack (at most kMaxLaneSlack), and a single change larger than
// kMaxLaneChange is published on its own (recorder.h).
constexpr int64_t kMaxLaneSlack = int64_t(1) << 30;
constexpr int64_t kMaxLaneChange = (int64_t(1) << 30) - 1;

struct alignas(16) HeapLanes {
  int32_t req;     // requested bytes
  int32_t use;     // usable bytes
  int32_t blocks;  // live blocks
  int32_t spare;   // always 0
};

#if defined(__x86_64__)

inline __m128i load(const HeapLanes& l) { return _mm_load_si128(reinterpret_cast<const __m128i*>(&l)); }
inline void store(HeapLanes& l, __m128i v) { _mm_store_si128(reinterpret_cast<__m128i*>(&l), v); }

inline __m128i lane_max(__m128i a, __m128i b) {
#if defined(__SSE4_1__)
  return _mm_max_epi32(a, b);
#else
  __m128i a_greater = _mm_cmpgt_epi32(a, b);
  return _mm_or_si128(_mm_and_si128(a_greater, a), _mm_andnot_si128(a_greater, b));
#endif
}

// local += {req, use, blocks}; local_max = max(local_max, local). True when a
// lane is now above its `limit`.
inline bool lanes_add(HeapLanes& local, HeapLanes& local_max, int32_t req, int32_t use, int32_t blocks,
                      const HeapLanes& limit) {
  __m128i sum = _mm_add_epi32(load(local), _mm_set_epi32(0, blocks, use, req));
  store(local, sum);
  store(local_max, lane_max(load(local_max), sum));
  return _mm_movemask_epi8(_mm_cmpgt_epi32(sum, load(limit))) != 0;
}

// local -= {req, use, blocks} (the maxima cannot move). True when a lane is now
// below its `limit`.
inline bool lanes_sub(HeapLanes& local, int32_t req, int32_t use, int32_t blocks, const HeapLanes& limit) {
  __m128i rest = _mm_sub_epi32(load(local), _mm_set_epi32(0, blocks, use, req));
  store(local, rest);
  return _mm_movemask_epi8(_mm_cmpgt_epi32(load(limit), rest)) != 0;
}

// Whether a lane of `local` is below its `limit`.
inline bool lanes_below(const HeapLanes& local, const HeapLanes& limit) {
  return _mm_movemask_epi8(_mm_cmpgt_epi32(load(limit), load(local))) != 0;
}

#else

inline bool lanes_below(const HeapLanes& local, const HeapLanes& limit);

inline bool lanes_add(HeapLanes& local, HeapLanes& local_max, int32_t req, int32_t use, int32_t blocks,
                      const HeapLanes& limit) {
  local.req += req;
  local.use += use;
  local.blocks += blocks;
  if (local.req > local_max.req) local_max.req = local.req;
  if (local.use > local_max.use) local_max.use = local.use;
  if (local.blocks > local_max.blocks) local_max.blocks = local.blocks;
  return (local.req > limit.req) | (local.use > limit.use) | (local.blocks > limit.blocks);
}

inline bool lanes_sub(HeapLanes& local, int32_t req, int32_t use, int32_t blocks, const HeapLanes& limit) {
  local.req -= req;
  local.use -= use;
  local.blocks -= blocks;
  return lanes_below(local, limit);
}

inline bool lanes_below(const HeapLanes& local, const HeapLanes& limit) {
  return (limit.req > local.req) | (limit.use > local.use) | (limit.blocks > local.blocks);
}

#endif

// ---- the thread's state and the accounting ----

// kTmInternal: libitm's own bookkeeping (inside a transaction or not), kept
// out of the program's region counts and histogram.
enum Region : int { kSeq = 0, kPar = 1, kTx = 2, kTmInternal = 3 };
// kForeign: a thread memprof did not start (see thread_attach): its calls only forward.
enum ThreadStatus : uint8_t { kNew = 0, kLive = 1, kExited = 2, kForeign = 3 };
// What the hooks keep of each block: MEMPROF_HEAP=0 counts only; else its size
// in the shadow, and its usable size as glibc's header says, from the memo
// (usable.h), or not at all (MEMPROF_USABLE=0).
enum HeapMode : uint8_t { kCountsOnly = 0, kHeapNoUsable = 1, kHeapGlibc = 2, kHeapMemo = 3 };

constexpr unsigned kMaxScopeDepth = 16;

struct ScopeFrame {
  uint32_t id;
  uint64_t start_ns;
  uint64_t allocs;
  uint64_t bytes;
  uint64_t freed;
};

struct ThreadState {
  union {
    // 0: the hot path may run (below), one load tells. A thread starts `slow`
    // (not attached yet: see `self`): its first hook takes the careful path.
    uint32_t gate;
    struct {
      uint16_t depth;     // > 0 while inside a hook: nested calls only forward
      uint16_t slow;      // != 0: not attached, or one of the rare conditions below holds
    };
  };
  ThreadStatus status;
  bool launched;           // started through memprof's pthread_create (its trampoline)
  uint8_t memo_countdown;  // blocks until the usable-size memo's next check (usable.h)
  int64_t sample_left;     // bytes until the next sampled allocation (sampling.h); INT64_MAX: off
  uint64_t sample_rng;
  // > 0 while glibc tears threads down on this thread (inside pthread_join, or
  // past this thread's exit destructor): a free of a block memprof never saw is
  // then glibc's own (a TLS vector it allocated inside pthread_create, which is
  // not counted), not one of the program's, and is not counted as untracked.
  uint8_t teardown;
  // The allocating hook in progress was called from libitm's code: the block
  // is libitm's own (its thread descriptor, its ownership-record table, its
  // logs), made outside a transaction too, unless itm_pending names it the
  // program's. Noted at depth 0 by every allocating entry point, read and
  // cleared by alloc_region.
  bool from_libitm;
  uint64_t itm_pending;   // requested size + 1 of the block libitm is about to allocate for the program
  uint64_t new_request;   // size + 1 the program gave operator new (libstdc++ may pass malloc another)
  // The first block allocated inside that operator new, held unrecorded until
  // the operator returns (hold_new_block); null: none held.
  void* new_held;
  size_t new_held_n;
  bool new_held_plain;
  Counters c;
  HeapLanes local;      // net heap change not yet published
  HeapLanes local_max;  // highest value of each lane of `local` since the last publish
  int64_t published_req;    // this thread's net requested bytes published so far
  double load_byte_ns;      // integral of published_req over time
  uint64_t last_publish_ns;
  TxSet tx_set;        // blocks whose free belongs to a transaction
  TxSet tm_internal;   // live blocks libitm allocated for itself on this thread
  uint32_t tx_marked;  // > 0 inside memprof_tx_begin/end: a transaction libitm does not see
  uint32_t in_tm_runtime;  // > 0 while libitm (de)registers a program's clone table: its blocks are libitm's
  ScopeFrame scopes[kMaxScopeDepth];
  uint32_t scope_depth;
  uintptr_t stack_low, stack_high;  // known for threads started through pthread_create
  bool counted;                     // started through pthread_create: counts as alive
  // MEMPROF_TRACE (trace.h): what the program called, and the thread's events.
  bool trace_opened;
  uint8_t call_op;
  uint32_t call_extra;
  uint64_t call_start_ns;
  void* trace_buffer;
  uint32_t trace_count;
  uint32_t trace_thread;
  uint8_t trace_in_door;  // 1 while a live thread writes its events (trace.cpp's Door; __atomic builtins)
  ThreadState* next;
  ThreadState* prev;
  // Allocations the hot path counted by size class (usable::memo_index, 8
  // bytes wide) instead of in `c`: one add where the histogram's bin lookup,
  // its add and (memo mode) the saturating add to usable_total_bytes were. A
  // class fixes both: the histogram's bins are multiples of 16 wide, and a
  // block the memo served has its class's usable size (usable::at_free). Folded
  // into the counters wherever they are read (fold_classes, totals.cpp).
  uint64_t by_class[usable::kMemoEntries];
};

extern __thread ThreadState self __attribute__((tls_model("initial-exec")));

// The next definition of `name` (the allocator's, libstdc++'s, libitm's,
// glibc's), looked up once under the nesting guard (dlsym may allocate its
// error text). A miss is remembered too (libstdc++ loaded RTLD_LOCAL by a
// plugin, no libitm): the caller falls back without asking again.
template <typename Fn>
Fn next_definition(Fn& cached, const char* name) {
  static_assert(sizeof(Fn) == sizeof(uintptr_t));
  const Fn missing = reinterpret_cast<Fn>(uintptr_t(1));
  if (__builtin_expect(!cached, 0)) {
    ThreadState& t = self;
    ++t.depth;
    Fn found = reinterpret_cast<Fn>(next_symbol(name));
    --t.depth;
    cached = found ? found : missing;
  }
  return cached == missing ? nullptr : cached;
}

// Read on every call, written rarely: one cache line of its own, so that
// threads publishing their heap change do not take it from the others.
struct alignas(64) Shared {
  std::atomic<bool> ready;             // real functions resolved and options read
  std::atomic<bool> counting;          // memprof's constructor ran: what follows is the program's
  std::atomic<bool> tm_loaded;         // libitm is in the process: every call asks its state
  std::atomic<bool> hot;               // counting, and no libitm: the hot path may run (below)
  bool tracing;                        // MEMPROF_TRACE: every call takes the careful path (trace.h)
  HeapMode mode;                       // what each block costs, fixed once options are read
  std::atomic<int> region;             // region of allocations outside transactions
  std::atomic<bool> region_explicit;   // the program set it through the header
  std::atomic<int> explicit_region;    // the region it set
  int64_t slack = 0;
  int64_t block_slack = 0;
  HeapLanes grow_limit;    // a lane above this must publish: slack - 1 (blocks: block_slack - 1)
  HeapLanes shrink_limit;  // a lane below this must publish: 1 - slack (blocks: 1 - block_slack)
  // Written at publishing and at start-up.
  alignas(64) std::atomic<int64_t> heap_req, heap_use, heap_blocks;  // published totals
  std::atomic<int64_t> peak_req, peak_use, peak_blocks;
  std::atomic<uint32_t> peak_resets;  // memprof_reset_peak and fork: a peak before this one is not the peak
  std::atomic<uint64_t> startup_allocs, startup_bytes;  // before counting: library initialisers
};
extern Shared shared;

// libitm is in the process: from now on every call asks its state (no hot path).
inline void note_libitm() {
  shared.tm_loaded.store(true, std::memory_order_seq_cst);
  shared.hot.store(false, std::memory_order_seq_cst);
}

// Slow paths (recorder.cpp / interposition/threads.cpp).
void thread_attach(ThreadState& t);
void publish(ThreadState& t);
// The slack of the peak bound (above); at most kMaxLaneSlack.
void set_peak_slack(uint64_t bytes);
void merge_exited(ThreadState& t);
void scope_note_alloc(ThreadState& t, uint64_t n);
void scope_note_free(ThreadState& t, uint64_t n);
void tx_set_add(ThreadState& t, void* p);
bool tx_set_take(ThreadState& t, void* p);
void tx_set_clear(ThreadState& t);
uint64_t now_ns();

// Only the owning thread writes a counter; the report reads it from another.
// One add to memory: a reader sees the old value or the new one, never a torn one.
// For counts of calls (one a call: 8.64e13 a thread in 24 h, far from 2^64);
// sums of bytes go through saturating::bump.
inline void bump(uint64_t& counter, uint64_t v = 1) {
#if defined(__x86_64__)
  __asm__("addq %[v], %[c]" : [c] "+m"(counter) : [v] "er"(v) : "cc");
#else
  __atomic_store_n(&counter, counter + v, __ATOMIC_RELAXED);
#endif
}

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

inline ThreadState& current_thread() {
  ThreadState& t = self;
  if (__builtin_expect(t.status == kNew, 0)) thread_attach(t);
  return t;
}

// After any change to the fields `slow` summarises (rare: libitm, scopes,
// transactional frees, attach and exit).
inline void refresh_slow(ThreadState& t) {
  t.slow = !(t.status == kLive && t.itm_pending == 0 && t.scope_depth == 0 && t.tx_set.count == 0 &&
             t.tx_marked == 0 && t.in_tm_runtime == 0);
  // A change that cannot clear a condition (a block already in the full
  // tx_set, say) may skip this: `slow` then stays set, which is always safe.
}

// A change too large for the lanes: published on its own (recorder.cpp).
void publish_change(ThreadState& t, int64_t req, int64_t use, int64_t blocks);

inline bool too_large_for_lanes(int64_t v) { return v > kMaxLaneChange || v < -kMaxLaneChange; }

// Any mix of signs (realloc).
inline void heap_change(ThreadState& t, int64_t req, int64_t use, int64_t blocks) {
  if (__builtin_expect(too_large_for_lanes(req) | too_large_for_lanes(use) | too_large_for_lanes(blocks), 0)) {
    publish_change(t, req, use, blocks);
    return;
  }
  bool above = lanes_add(t.local, t.local_max, int32_t(req), int32_t(use), int32_t(blocks), shared.grow_limit);
  if (__builtin_expect(above | lanes_below(t.local, shared.shrink_limit), 0)) publish(t);
}

// A block arrived, or left.
inline void heap_grow(ThreadState& t, int64_t req, int64_t use) { heap_change(t, req, use, 1); }
inline void heap_shrink(ThreadState& t, int64_t req, int64_t use) { heap_change(t, -req, -use, -1); }

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
