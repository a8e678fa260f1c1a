// totals.cpp — the process-wide view at exit and across threads' lives: the
// counters of threads that ended, the load of the heap they left, the totals
// the report reads, and the reset of a forked child.
#include "recording/totals.h"

#include "base/saturating.h"
#include "os/clock.h"
#include "recording/heap.h"
#include "recording/registry.h"

namespace memprof {

namespace {

constinit Counters exited;  // counters of threads that ended, added atomically

// The published heap of threads that ended keeps contributing to the load.
struct Orphans {
  double load_byte_ns;
  int64_t published_req;
  uint64_t last_ns;
};
constinit Orphans orphans{};  // under registry::lock()

// Adds the hot path's counts by class (ThreadState::by_class) to `c`: each
// class's bin, and in memo mode its usable size per block (the memo's at_free,
// which is what the hot path took it for). Another thread may be adding to them.
void fold_classes(const ThreadState& t, Counters& c) {
  const bool memo = shared.mode == kHeapMemo;
  for (size_t i = 0; i < usable::kMemoEntries; ++i) {
    uint64_t blocks = __atomic_load_n(&t.by_class[i], __ATOMIC_RELAXED);
    if (blocks == 0) continue;
    uint64_t& bin = c.histogram()[size_bin(i * 8)];  // 8i: the class's largest size
    bin = saturating::add(bin, blocks);
    if (!memo) continue;
    uint64_t bytes;
    if (__builtin_mul_overflow(blocks, uint64_t(__atomic_load_n(&usable::memo[i].at_free, __ATOMIC_ACQUIRE)), &bytes))
      bytes = UINT64_MAX;
    c.usable_total_bytes = saturating::add(c.usable_total_bytes, bytes);
  }
}

void clear_classes(ThreadState& t) {
  for (uint64_t& blocks : t.by_class) __atomic_store_n(&blocks, uint64_t(0), __ATOMIC_RELAXED);
}

}  // namespace

void merge_counters(ThreadState& t) {
  publish(t);
  // Under registry::lock(), which collect() holds too: it never sees a class
  // both in t.c and in by_class.
  fold_classes(t, t.c);
  clear_classes(t);
#define MEMPROF_COUNTER(name) saturating::add_atomic(&exited.name, t.c.name);
#include "recording/each_counter.inc"
#undef MEMPROF_COUNTER
  t.c = Counters{};
}

void count_unowned(uint64_t Counters::*counter, uint64_t v) {
  saturating::add_atomic(&(exited.*counter), v);
}

// Other libraries' destructors run after memprof's: a thread whose exit
// destructor already ran still allocates or frees.
void merge_exited(ThreadState& t) {
  merge_counters(t);
  registry::lock();
  fold_into_orphans(t, now_ns());
  registry::unlock();
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
  clear_classes(survivor);
  orphans = Orphans{};
  survivor.load_byte_ns = 0;
  survivor.published_req = shared.heap_req.load(std::memory_order_relaxed);
  survivor.last_publish_ns = now_ns();
  shared.peak_req.store(shared.heap_req.load() + survivor.local.req);
  shared.peak_use.store(shared.heap_use.load() + survivor.local.use);
  shared.peak_blocks.store(shared.heap_blocks.load() + survivor.local.blocks);
  shared.peak_resets.fetch_add(1);
}

double load_until(uint64_t now) {
  double load = orphans.load_byte_ns;
  if (orphans.last_ns && now > orphans.last_ns)
    load += double(orphans.published_req) * double(now - orphans.last_ns);
  for (ThreadState* t = registry::first(); t; t = t->next) {
    load += t->load_byte_ns;
    if (t->last_publish_ns && now > t->last_publish_ns)
      load += double(t->published_req) * double(now - t->last_publish_ns);
  }
  return load;
}

Totals collect(uint64_t now) {
  Totals out{};
  registry::lock();
#define MEMPROF_COUNTER(name) out.c.name = __atomic_load_n(&exited.name, __ATOMIC_RELAXED);
#include "recording/each_counter.inc"
#undef MEMPROF_COUNTER
  out.req_end = shared.heap_req.load();
  out.use_end = shared.heap_use.load();
  out.blocks_end = shared.heap_blocks.load();
  for (ThreadState* t = registry::first(); t; t = t->next) {
#define MEMPROF_COUNTER(name) out.c.name = saturating::add(out.c.name, __atomic_load_n(&t->c.name, __ATOMIC_RELAXED));
#include "recording/each_counter.inc"
#undef MEMPROF_COUNTER
    fold_classes(*t, out.c);
    out.req_end += t->local.req;
    out.use_end += t->local.use;
    out.blocks_end += t->local.blocks;
  }
  out.load_byte_ns = load_until(now);
  registry::unlock();
  out.req_peak = shared.peak_req.load() > out.req_end ? shared.peak_req.load() : out.req_end;
  out.use_peak = shared.peak_use.load() > out.use_end ? shared.peak_use.load() : out.use_end;
  out.blocks_peak = shared.peak_blocks.load() > out.blocks_end ? shared.peak_blocks.load() : out.blocks_end;
  int n = registry::peak_alive();
  out.peak_error_bytes = n > 1 ? uint64_t(n + 1) * uint64_t(shared.slack) : 0;
  out.blocks_peak_error = n > 1 ? uint64_t(n + 1) * uint64_t(shared.block_slack) : 0;
  return out;
}

}  // namespace memprof
