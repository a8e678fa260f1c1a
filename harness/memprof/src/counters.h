// counters.h — the per-thread event counters, defined once. The X-macro makes
// the struct, the merge of an exited thread and the record keys agree.
#pragma once
#include <stdint.h>

// X(field, record key)
#define MEMPROF_COUNTERS(X)                               \
  X(allocs_seq, "allocs_seq_count")                       \
  X(allocs_par, "allocs_par_count")                       \
  X(allocs_tx, "allocs_tx_count")                         \
  X(frees_seq, "frees_seq_count")                         \
  X(frees_par, "frees_par_count")                         \
  X(frees_tx, "frees_tx_count")                           \
  X(requested_seq, "requested_seq_bytes")                 \
  X(requested_par, "requested_par_bytes")                 \
  X(requested_tx, "requested_tx_bytes")                   \
  X(usable_total, "usable_total_bytes")                   \
  X(reallocs, "reallocs_count")                           \
  X(realloc_moves, "realloc_moves_count")                 \
  X(allocs_failed, "allocs_failed_count")                 \
  X(allocs_untracked, "allocs_untracked_count")           \
  X(frees_untracked, "frees_untracked_count")             \
  X(allocs_tm_internal, "allocs_tm_internal_count")       \
  X(frees_tm_internal, "frees_tm_internal_count")         \
  X(requested_tm_internal, "requested_tm_internal_bytes") \
  X(size_le16, "size_le16_count")                         \
  X(size_le32, "size_le32_count")                         \
  X(size_le48, "size_le48_count")                         \
  X(size_le64, "size_le64_count")                         \
  X(size_le96, "size_le96_count")                         \
  X(size_le128, "size_le128_count")                       \
  X(size_le256, "size_le256_count")                       \
  X(size_le512, "size_le512_count")                       \
  X(size_le1024, "size_le1024_count")                     \
  X(size_gt1024, "size_gt1024_count")                     \
  X(tm_size_le16, "tm_internal_size_le16_count")          \
  X(tm_size_le32, "tm_internal_size_le32_count")          \
  X(tm_size_le48, "tm_internal_size_le48_count")          \
  X(tm_size_le64, "tm_internal_size_le64_count")          \
  X(tm_size_le96, "tm_internal_size_le96_count")          \
  X(tm_size_le128, "tm_internal_size_le128_count")        \
  X(tm_size_le256, "tm_internal_size_le256_count")        \
  X(tm_size_le512, "tm_internal_size_le512_count")        \
  X(tm_size_le1024, "tm_internal_size_le1024_count")      \
  X(tm_size_gt1024, "tm_internal_size_gt1024_count")

namespace memprof {

struct Counters {
#define MEMPROF_FIELD(field, key) uint64_t field;
  MEMPROF_COUNTERS(MEMPROF_FIELD)
#undef MEMPROF_FIELD

  // Region-indexed views (seq, par, tx are consecutive).
  uint64_t* allocs() { return &allocs_seq; }
  uint64_t* frees() { return &frees_seq; }
  uint64_t* requested() { return &requested_seq; }
  uint64_t* histogram() { return &size_le16; }
  uint64_t* histogram_tm_internal() { return &tm_size_le16; }
};

// Bin of the PPoPP'15 size histogram: <=16, 32, 48, 64, 96, 128, 256, 512, 1024, >1024.
// For n <= 1024 the bin depends only on ceil(n / 16), so a table serves; every
// larger n is read as 1025 (the last entry). No branch on the size: programs mix
// sizes, and a mispredicted branch per call costs more than the lookup.
inline constexpr uint8_t kBinBySixteenths[66] = {
    0, 0, 1, 2, 3, 4, 4, 5, 5,                                      // 0..128
    6, 6, 6, 6, 6, 6, 6, 6,                                         // ..256
    7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,                 // ..512
    8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,                 // ..1024
    8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,
    9};                                                             // > 1024

inline unsigned size_bin(uint64_t n) { return kBinBySixteenths[((n < 1025 ? n : 1025) + 15) >> 4]; }

}  // namespace memprof
