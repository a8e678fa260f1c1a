// recorder.cpp — the slow paths of the accounting: publishing a thread's local
// heap change (peak candidates, load integral, series), merging the counters of
// threads that ended, the transactional free set, named scopes, and the
// process-wide totals the report reads.
#include "recorder.h"

#include <time.h>

#include "series.h"
#include "text.h"
#include "threads.h"
#include "totals.h"

namespace memprof {

// Every thread's state starts zero but `slow` (not attached yet): `gate` holds
// depth in its low half and slow in its high half on this little-endian target.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "gate's halves assume little-endian");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
__thread ThreadState self __attribute__((tls_model("initial-exec"))) = {{uint32_t(1) << 16}};
#pragma GCC diagnostic pop
constinit Shared shared{};

namespace {

constinit Counters exited;  // counters of threads that ended, added atomically

// The published heap of threads that ended keeps contributing to the load.
struct Orphans {
  double load_byte_ns;
  int64_t published_req;
  uint64_t last_ns;
};
constinit Orphans orphans{};  // under threads::lock()

void atomic_max(std::atomic<int64_t>& target, int64_t v) {
  int64_t cur = target.load(std::memory_order_relaxed);
  while (v > cur && !target.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
  }
}

struct ScopeTotals {
  char name[48];
  std::atomic<uint64_t> calls, allocs, bytes, duration_ns;
  std::atomic<int64_t> held;
};
constinit ScopeTotals scopes[kMaxScopes];
constinit std::atomic<uint32_t> scope_count{0};
constinit std::atomic<bool> scope_lock{false};

}  // namespace

void scope_names_lock() {
  while (scope_lock.exchange(true, std::memory_order_acquire)) __builtin_ia32_pause();
}

void scope_names_unlock() { scope_lock.store(false, std::memory_order_release); }

uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

// Adds a thread's change to the process-wide totals; `*_max` is the highest
// the change reached on the way (its candidate for the peak).
static void publish_values(ThreadState& t, int64_t req, int64_t req_max, int64_t use, int64_t use_max,
                           int64_t blocks, int64_t blocks_max) {
  uint64_t now = now_ns();
  int64_t before = shared.heap_req.fetch_add(req, std::memory_order_relaxed);
  atomic_max(shared.peak_req, before + req_max);
  int64_t before_use = shared.heap_use.fetch_add(use, std::memory_order_relaxed);
  atomic_max(shared.peak_use, before_use + use_max);
  int64_t before_blocks = shared.heap_blocks.fetch_add(blocks, std::memory_order_relaxed);
  atomic_max(shared.peak_blocks, before_blocks + blocks_max);

  if (t.last_publish_ns) t.load_byte_ns += double(t.published_req) * double(now - t.last_publish_ns);
  t.last_publish_ns = now;
  t.published_req += req;

  if (options.series) series::on_publish(now, before + req, before + req_max);
}

void publish(ThreadState& t) {
  HeapLanes local = t.local, local_max = t.local_max;
  t.local = HeapLanes{};
  t.local_max = HeapLanes{};
  publish_values(t, local.req, local_max.req, local.use, local_max.use, local.blocks, local_max.blocks);
}

void set_peak_slack(uint64_t bytes) {
  int64_t slack = bytes > uint64_t(kMaxLaneSlack) ? kMaxLaneSlack : int64_t(bytes);
  int64_t block_slack = slack / 64;
  shared.slack = slack;
  shared.block_slack = block_slack;
  // A lane at or past the slack publishes; the spare lane (always 0) never does.
  shared.grow_limit = HeapLanes{int32_t(slack - 1), int32_t(slack - 1), int32_t(block_slack - 1), 0};
  shared.shrink_limit = HeapLanes{int32_t(1 - slack), int32_t(1 - slack), int32_t(1 - block_slack), 0};
}

void publish_change(ThreadState& t, int64_t req, int64_t use, int64_t blocks) {
  publish(t);
  publish_values(t, req, req > 0 ? req : 0, use, use > 0 ? use : 0, blocks, blocks > 0 ? blocks : 0);
}

void merge_counters(ThreadState& t) {
  publish(t);
#define MEMPROF_COUNTER(name) __atomic_fetch_add(&exited.name, t.c.name, __ATOMIC_RELAXED);
#include "each_counter.inc"
#undef MEMPROF_COUNTER
  t.c = Counters{};
}

// A thread whose exit destructor already ran still allocates or frees (other
// libraries' destructors run after memprof's): merge at once, load included.
void merge_exited(ThreadState& t) {
  merge_counters(t);
  threads::lock();
  fold_into_orphans(t, now_ns());
  threads::unlock();
}

void fold_into_orphans(ThreadState& t, uint64_t now) {
  if (now < orphans.last_ns) now = orphans.last_ns;
  if (orphans.last_ns) orphans.load_byte_ns += double(orphans.published_req) * double(now - orphans.last_ns);
  orphans.last_ns = now;
  if (t.last_publish_ns && now > t.last_publish_ns)
    t.load_byte_ns += double(t.published_req) * double(now - t.last_publish_ns);
  orphans.load_byte_ns += t.load_byte_ns;
  orphans.published_req += t.published_req;
  t.load_byte_ns = 0;
  t.published_req = 0;
  t.last_publish_ns = now;
}

void reset_for_child(ThreadState& survivor) {
  // Only the forking thread survives; its counters start again, and it owns
  // every inherited block in the load integral.
  exited = Counters{};
  survivor.c = Counters{};
  orphans = Orphans{};
  survivor.load_byte_ns = 0;
  survivor.published_req = shared.heap_req.load(std::memory_order_relaxed);
  survivor.last_publish_ns = now_ns();
  shared.peak_req.store(shared.heap_req.load() + survivor.local.req);
  shared.peak_use.store(shared.heap_use.load() + survivor.local.use);
  shared.peak_blocks.store(shared.heap_blocks.load() + survivor.local.blocks);
}

int alloc_region(ThreadState& t, size_t n, void* p) {
  if (t.itm_pending != 0 && t.itm_pending == n + 1) {
    t.itm_pending = 0;  // the program's block; what libitm allocates next is its own
    tx_set_add(t, p);   // refreshes `slow`
    return kTx;
  }
  if (t.tx_marked != 0) return kTx;
  int state = tm_state();
  if (state == 2) return kTx;
  if (state == 1) {
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
  if (t.tm_internal.count != 0 && tx_set_remove(t.tm_internal, p)) return kTmInternal;
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
  if (t.new_request != 0) {
    if (!p) {  // operator new retries or throws; it counts the failure itself
      t.new_request = 0;
      return;
    }
    take_new_request(t, &n, &plain);
  }
  if (!p) {
    bump(t.c.allocs_failed_count);
    return;
  }
  int r = alloc_region(t, n, p);
  count_allocation(t, r, n);
  if (options.track_heap) {
    bool odd;
    size_t u = usable::of_new_block(p, n, plain, &odd, t.memo_countdown);
    if (!shadow::remember(p, n, odd)) {
      bump(t.c.allocs_untracked_count);
    } else {
      bump(t.c.usable_total_bytes, u);
      heap_grow(t, int64_t(n), int64_t(u));
    }
  }
  if (t.scope_depth != 0) scope_note_alloc(t, n);
  if (t.status == kExited) merge_exited(t);
}

void account_free(ThreadState& t, void* p, size_t n, size_t u) {
  count_free(t, free_region(t, p));
  heap_shrink(t, int64_t(n), int64_t(u));
  if (t.scope_depth != 0) scope_note_free(t, n);
}

bool record_free_careful(ThreadState& t, void* p) {
  if (t.status == kNew) thread_attach(t);
  if (!options.track_heap) {
    if (is_bootstrap(p)) return false;
    count_free(t, free_region(t, p));
    if (t.status == kExited) merge_exited(t);
    return true;
  }
  size_t n;
  bool odd;
  bool known = shadow::forget(p, &n, &odd);
  if (!known) {
    if (t.teardown == 0) bump(t.c.frees_untracked_count);
  } else {
    account_free(t, p, n, usable::of_freed_block(p, n, odd));
  }
  if (t.status == kExited) merge_exited(t);
  return known;
}

ReallocOld record_realloc_begin(void* p) {
  ReallocOld old{0, 0, false, false};
  if (!options.track_heap) return old;
  old.known = shadow::forget(p, &old.n, &old.odd);
  if (old.known) old.usable = usable::of_freed_block(p, old.n, old.odd);
  return old;
}

static void realloc_outcome(ThreadState& t, void* p, void* q, size_t n, const ReallocOld& old) {
  if (!options.track_heap) {  // counts only
    if (!q && n != 0) {
      bump(t.c.allocs_failed_count);
    } else if (n == 0) {
      bump(t.c.frees()[shared.region.load(std::memory_order_relaxed)]);
      if (q) record_alloc(t, q, 0, false);
    } else {
      if (q != p) forget_tm_internal(t, p);
      count_realloc(t, alloc_region(t, n, q), n, q != p);
    }
    return;
  }
  if (!q && n != 0) {  // failed: p is untouched
    if (old.known) shadow::restore(p, old.n, old.odd);
    bump(t.c.allocs_failed_count);
    return;
  }
  if (n == 0) {
    // p is released; some allocators hand back a fresh minimal block.
    if (old.known) {
      account_free(t, p, old.n, old.usable);
    } else {
      bump(t.c.frees_untracked_count);
    }
    if (q) record_alloc(t, q, 0, false);
    return;
  }
  if (q != p) forget_tm_internal(t, p);
  count_realloc(t, alloc_region(t, n, q), n, q != p);
  // A block resized in place may keep more than its size class: not plain.
  bool odd;
  size_t u = usable::of_new_block(q, n, false, &odd, t.memo_countdown);
  if (shadow::remember(q, n, odd)) {
    if (old.known) {
      heap_change(t, int64_t(n) - int64_t(old.n), int64_t(u) - int64_t(old.usable), 0);
    } else {
      heap_change(t, int64_t(n), int64_t(u), 1);
    }
    if (u > old.usable) bump(t.c.usable_total_bytes, u - old.usable);
  } else if (old.known) {
    heap_change(t, -int64_t(old.n), -int64_t(old.usable), -1);
  }
}

void record_realloc_end(ThreadState& t, void* p, void* q, size_t n, const ReallocOld& old) {
  realloc_outcome(t, p, q, n, old);
  if (__builtin_expect(t.status == kExited, 0)) merge_exited(t);
}

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

// --- named scopes ---

// Names are compared as stored: at most sizeof name - 1 characters.
static bool same_scope_name(const char* stored, const char* name) {
  return text::equal_prefix(stored, name, sizeof(ScopeTotals::name) - 1);
}

static uint32_t scope_id(const char* name) {
  uint32_t n = scope_count.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < n; ++i)
    if (same_scope_name(scopes[i].name, name)) return i;
  scope_names_lock();
  n = scope_count.load(std::memory_order_relaxed);
  uint32_t id = kMaxScopes;
  for (uint32_t i = 0; i < n; ++i)
    if (same_scope_name(scopes[i].name, name)) id = i;
  if (id == kMaxScopes && n < kMaxScopes) {
    text::copy(scopes[n].name, sizeof scopes[n].name, name);
    id = n;
    scope_count.store(n + 1, std::memory_order_release);
  }
  scope_names_unlock();
  return id;
}

void scope_begin(ThreadState& t, const char* name) {
  if (t.scope_depth >= kMaxScopeDepth) {
    ++t.scope_depth;  // counted so that ends still match
    return;
  }
  ScopeFrame& f = t.scopes[t.scope_depth++];
  f = ScopeFrame{scope_id(name), now_ns(), 0, 0, 0};
  refresh_slow(t);
}

void scope_end(ThreadState& t) {
  if (t.scope_depth == 0) return;
  if (t.scope_depth-- > kMaxScopeDepth) return;
  refresh_slow(t);
  ScopeFrame& f = t.scopes[t.scope_depth];
  if (f.id < kMaxScopes) {
    ScopeTotals& s = scopes[f.id];
    s.calls.fetch_add(1, std::memory_order_relaxed);
    s.allocs.fetch_add(f.allocs, std::memory_order_relaxed);
    s.bytes.fetch_add(f.bytes, std::memory_order_relaxed);
    s.held.fetch_add(int64_t(f.bytes) - int64_t(f.freed), std::memory_order_relaxed);
    s.duration_ns.fetch_add(now_ns() - f.start_ns, std::memory_order_relaxed);
  }
  if (t.scope_depth > 0) {
    ScopeFrame& parent = t.scopes[t.scope_depth - 1];
    parent.allocs += f.allocs;
    parent.bytes += f.bytes;
    parent.freed += f.freed;
  }
}

void scope_note_alloc(ThreadState& t, uint64_t n) {
  if (t.scope_depth > kMaxScopeDepth) return;
  ScopeFrame& f = t.scopes[t.scope_depth - 1];
  ++f.allocs;
  f.bytes += n;
}

void scope_note_free(ThreadState& t, uint64_t n) {
  if (t.scope_depth > kMaxScopeDepth) return;
  t.scopes[t.scope_depth - 1].freed += n;
}

uint32_t scope_totals(ScopeReport* out, uint32_t max) {
  uint32_t n = scope_count.load(std::memory_order_acquire);
  if (n > max) n = max;
  for (uint32_t i = 0; i < n; ++i) {
    out[i].name = scopes[i].name;
    out[i].calls = scopes[i].calls.load();
    out[i].allocs = scopes[i].allocs.load();
    out[i].bytes = scopes[i].bytes.load();
    out[i].held = scopes[i].held.load();
    out[i].duration_ns = scopes[i].duration_ns.load();
  }
  return n;
}

// --- totals ---

double load_until(uint64_t now) {
  double load = orphans.load_byte_ns;
  if (orphans.last_ns && now > orphans.last_ns)
    load += double(orphans.published_req) * double(now - orphans.last_ns);
  for (ThreadState* t = threads::first(); t; t = t->next) {
    load += t->load_byte_ns;
    if (t->last_publish_ns && now > t->last_publish_ns)
      load += double(t->published_req) * double(now - t->last_publish_ns);
  }
  return load;
}

Totals collect(uint64_t now) {
  Totals out{};
  threads::lock();
#define MEMPROF_COUNTER(name) out.c.name = __atomic_load_n(&exited.name, __ATOMIC_RELAXED);
#include "each_counter.inc"
#undef MEMPROF_COUNTER
  out.req_end = shared.heap_req.load();
  out.use_end = shared.heap_use.load();
  out.blocks_end = shared.heap_blocks.load();
  for (ThreadState* t = threads::first(); t; t = t->next) {
#define MEMPROF_COUNTER(name) out.c.name += __atomic_load_n(&t->c.name, __ATOMIC_RELAXED);
#include "each_counter.inc"
#undef MEMPROF_COUNTER
    out.req_end += t->local.req;
    out.use_end += t->local.use;
    out.blocks_end += t->local.blocks;
  }
  out.load_byte_ns = load_until(now);
  threads::unlock();
  out.req_peak = shared.peak_req.load() > out.req_end ? shared.peak_req.load() : out.req_end;
  out.use_peak = shared.peak_use.load() > out.use_end ? shared.peak_use.load() : out.use_end;
  out.blocks_peak = shared.peak_blocks.load() > out.blocks_end ? shared.peak_blocks.load() : out.blocks_end;
  int n = threads::peak_alive();
  out.peak_error_bytes = n > 1 ? uint64_t(n + 1) * uint64_t(shared.slack) : 0;
  out.blocks_peak_error = n > 1 ? uint64_t(n + 1) * uint64_t(shared.block_slack) : 0;
  return out;
}

int64_t current_requested() {
  ThreadState& t = current_thread();
  return shared.heap_req.load(std::memory_order_relaxed) + t.local.req;
}

int64_t peak_requested() {
  ThreadState& t = current_thread();
  int64_t p = shared.peak_req.load(std::memory_order_relaxed);
  int64_t mine = shared.heap_req.load(std::memory_order_relaxed) + t.local_max.req;
  return p > mine ? p : mine;
}

void reset_requested_peak() {
  ThreadState& t = current_thread();
  publish(t);
  shared.peak_req.store(shared.heap_req.load());
  shared.peak_use.store(shared.heap_use.load());
  shared.peak_blocks.store(shared.heap_blocks.load());
}

}  // namespace memprof
