// totals.h — the recorder's process-wide view, read by the report and the public
// API: summed counters, heap end and peak figures with their bound, the load
// integral, and what fork and thread exit need (totals.cpp).
#pragma once
#include <stdint.h>

#include "recording/thread_state.h"

namespace memprof {

struct Totals {
  Counters c;
  int64_t req_end, use_end, blocks_end;
  int64_t req_peak, use_peak, blocks_peak;
  uint64_t peak_error_bytes, blocks_peak_error;
  double load_byte_ns;
};

Totals collect(uint64_t now);
// Load integral up to `now`; the caller holds registry::lock().
double load_until(uint64_t now);

// Thread exit: the thread's share of the load moves to the orphans (under lock).
void fold_into_orphans(ThreadState& t, uint64_t now);
// After fork, in the child: counting starts again from the inherited heap.
void reset_for_child(ThreadState& survivor);

// Thread exit: publish and move the counters to the exited totals (caller holds registry::lock()).
void merge_counters(ThreadState& t);
// A thread whose exit destructor already ran still allocates or frees: its
// figures are merged at once, load included.
void merge_exited(ThreadState& t);
// A count on a thread without counters of its own (not attached: a thread the
// allocator started for itself; or already merged at its exit): added to the
// exited totals at once, atomically. No lock.
void count_unowned(uint64_t Counters::*counter, uint64_t v);

}  // namespace memprof
