// heap.h — the heap's figures: each thread keeps its net change local (its
// heap lanes, lanes.h) and publishes it to the process-wide totals and peaks
// at most once per `slack` bytes (and slack/64 blocks) of change (heap.cpp).
// The inline part runs on the malloc path: no lock, no allocation, no I/O.
//
// Peak bound: a thread keeps up to `slack` bytes of net change local and
// remembers the highest local value since it last published; on publishing,
// the candidate peak is published_total_before + local_max. With one thread
// alive this is exact; with N > 1 alive at once the true peak is within
// (N + 1) * slack of the figure (heap_peak_error_bytes states it).
#pragma once
#include <stdint.h>

#include "recording/thread_state.h"

namespace memprof {

// Publishes the thread's local change (peak candidates, load integral, series).
void publish(ThreadState& t);
// The slack of the peak bound (above); at most kMaxLaneSlack.
void set_peak_slack(uint64_t bytes);
// A change too large for the lanes: published on its own.
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

// The requested bytes live and their peak as thread `t` sees them (the
// published figures and its own unpublished change), for the public API and
// the sampler's peak snapshot; the reset starts a new peak from here.
int64_t current_requested(const ThreadState& t);
int64_t peak_requested(const ThreadState& t);
void reset_requested_peak(ThreadState& t);

}  // namespace memprof
