// counters.h — the per-thread event counters. Their names are the record keys
// whose source is `counter` in harness/contract/keys.def (each_counter.inc), so
// the struct, the merge of an exited thread and the record cannot disagree.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "size_bins.h"

namespace memprof {

struct Counters {
#define MEMPROF_COUNTER(name) uint64_t name;
#include "recording/each_counter.inc"
#undef MEMPROF_COUNTER

  // Region-indexed views (seq, par, tx are consecutive).
  uint64_t* allocs() { return &allocs_seq_count; }
  uint64_t* frees() { return &frees_seq_count; }
  uint64_t* requested() { return &requested_seq_bytes; }
  uint64_t* histogram() { return &size_le16_count; }
  uint64_t* histogram_tm_internal() { return &tm_internal_size_le16_count; }
  uint64_t* kernel_calls() { return &kcalls_seq_count; }

  // The allocator's kernel calls (kernel_calls.h), kcall_mmap_count to
  // kcalls_tx_count: left out of the record where they cannot be counted.
  static constexpr bool is_kernel_call(size_t offset) {
    return offset >= offsetof(Counters, kcall_mmap_count) && offset <= offsetof(Counters, kcalls_tx_count);
  }
};

// The views above index consecutive keys of keys.def.
#define MEMPROF_AFTER(a, b, n) static_assert(offsetof(Counters, b) == offsetof(Counters, a) + (n) * sizeof(uint64_t))
MEMPROF_AFTER(allocs_seq_count, allocs_tx_count, 2);
MEMPROF_AFTER(frees_seq_count, frees_tx_count, 2);
MEMPROF_AFTER(requested_seq_bytes, requested_tx_bytes, 2);
MEMPROF_AFTER(size_le16_count, size_gt1024_count, 9);
MEMPROF_AFTER(tm_internal_size_le16_count, tm_internal_size_gt1024_count, 9);
MEMPROF_AFTER(kcalls_seq_count, kcalls_tx_count, 2);
MEMPROF_AFTER(kcall_mmap_count, kcalls_tx_count, 16);
#undef MEMPROF_AFTER

// Bin of the PPoPP'15 size histogram (harness/contract/size_bins.h, shared
// with the trace's figures).
inline unsigned size_bin(uint64_t n) { return size_bins::bin_of(n); }

}  // namespace memprof
