// totals.h — the recorder's process-wide view, read by the report and the public
// API: summed counters, heap end and peak figures with their bound, the load
// integral, named-scope totals, and the hooks that fork and thread exit need.
#pragma once
#include <stdint.h>

#include "recorder.h"

namespace memprof {

constexpr uint32_t kMaxScopes = 64;

struct Totals {
  Counters c;
  int64_t req_end, use_end, blocks_end;
  int64_t req_peak, use_peak, blocks_peak;
  uint64_t peak_error_bytes, blocks_peak_error;
  double load_byte_ns;
};

struct ScopeReport {
  const char* name;
  uint64_t calls, allocs, bytes, duration_ns;
  int64_t held;
};

Totals collect(uint64_t now);
// Load integral up to `now`; the caller holds threads::lock().
double load_until(uint64_t now);
uint32_t scope_totals(ScopeReport* out, uint32_t max);

void scope_begin(ThreadState& t, const char* name);
void scope_end(ThreadState& t);
void tx_set_clear(ThreadState& t);

// Thread exit: the thread's share of the load moves to the orphans (under lock).
void fold_into_orphans(ThreadState& t, uint64_t now);
// After fork, in the child: counting starts again from the inherited heap.
void reset_for_child(ThreadState& survivor);

// Fork handlers hold this across fork (the name table's only lock).
void scope_names_lock();
void scope_names_unlock();
// Thread exit: publish and move the counters to the exited totals (caller holds threads::lock()).
void merge_counters(ThreadState& t);

int64_t current_requested();
int64_t peak_requested();
void reset_requested_peak();

}  // namespace memprof
