// thread_state.h — what memprof keeps: each thread's state (`self`: its
// counters, its unpublished heap change, its nesting guard and the rare
// conditions that keep it off the hot path) and the process-wide `shared`
// line every call reads. The layers above read and write these fields; the
// only code here is what each of them needs on the malloc path (a counter's
// add, the `slow` summary) and the lookup of a next definition.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include <atomic>

#include "os/real.h"
#include "recording/counters.h"
#include "recording/lanes.h"
#include "recording/tx_set.h"
#include "recording/usable.h"

namespace memprof {

// kTmInternal: libitm's own bookkeeping (inside a transaction or not), kept
// out of the program's region counts and histogram.
enum Region : int { kSeq = 0, kPar = 1, kTx = 2, kTmInternal = 3 };
// kForeign: a thread memprof did not start (registry.h: thread_attach): its calls only forward.
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
    // 0: the hot path may run (recorder.h: on_hot_path), one load tells. A
    // thread starts `slow` (not attached yet: see `self`): its first hook
    // takes the careful path.
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
  std::atomic<bool> hot;               // counting, and no libitm: the hot path may run (recorder.h)
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

// After any change to the fields `slow` summarises (rare: libitm, scopes,
// transactional frees, attach and exit).
inline void refresh_slow(ThreadState& t) {
  t.slow = !(t.status == kLive && t.itm_pending == 0 && t.scope_depth == 0 && t.tx_set.count == 0 &&
             t.tx_marked == 0 && t.in_tm_runtime == 0);
  // A change that cannot clear a condition (a block already in the full
  // tx_set, say) may skip this: `slow` then stays set, which is always safe.
}

}  // namespace memprof
