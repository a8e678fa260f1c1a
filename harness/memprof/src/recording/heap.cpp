// heap.cpp — publishing (heap.h): a thread's local change added to the
// process-wide totals, its peak candidates, its share of the load integral,
// and the series' point; and the figures the public API reads.
#include "recording/heap.h"

#include "base/options.h"
#include "os/clock.h"
#include "recording/series.h"

namespace memprof {

namespace {

void atomic_max(std::atomic<int64_t>& target, int64_t v) {
  int64_t cur = target.load(std::memory_order_relaxed);
  while (v > cur && !target.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
  }
}

// Adds a thread's change to the process-wide totals; `*_max` is the highest
// the change reached on the way (its candidate for the peak).
void publish_values(ThreadState& t, int64_t req, int64_t req_max, int64_t use, int64_t use_max, int64_t blocks,
                    int64_t blocks_max) {
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

}  // namespace

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

int64_t current_requested(const ThreadState& t) {
  return shared.heap_req.load(std::memory_order_relaxed) + t.local.req;
}

int64_t peak_requested(const ThreadState& t) {
  int64_t p = shared.peak_req.load(std::memory_order_relaxed);
  int64_t mine = shared.heap_req.load(std::memory_order_relaxed) + t.local_max.req;
  return p > mine ? p : mine;
}

void reset_requested_peak(ThreadState& t) {
  publish(t);
  shared.peak_req.store(shared.heap_req.load());
  shared.peak_use.store(shared.heap_use.load());
  shared.peak_blocks.store(shared.heap_blocks.load());
  shared.peak_resets.fetch_add(1);
}

}  // namespace memprof
