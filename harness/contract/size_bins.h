// size_bins.h — the PPoPP'15 size histogram, the one definition memprof counts
// by (counters.h) and the trace's figures are computed by (trace_stats.cpp):
// bins of at most 16, 32, 48, 64, 96, 128, 256, 512 and 1024 bytes and more
// than 1024, in the order of keys.def's size_*_count keys. No allocation, no
// branch on the size: it runs on memprof's malloc path.
#pragma once
#include <stdint.h>

namespace size_bins {

inline constexpr unsigned kCount = 10;

// For n <= 1024 the bin depends only on ceil(n / 16), so a table serves; every
// larger n is read as 1025 (the last entry). Programs mix sizes, and a
// mispredicted branch per call costs more than the lookup.
inline constexpr uint8_t kBinBySixteenths[66] = {
    0, 0, 1, 2, 3, 4, 4, 5, 5,                                      // 0..128
    6, 6, 6, 6, 6, 6, 6, 6,                                         // ..256
    7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,                 // ..512
    8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,                 // ..1024
    8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,
    9};                                                             // > 1024

inline unsigned bin_of(uint64_t n) { return kBinBySixteenths[((n < 1025 ? n : 1025) + 15) >> 4]; }

}  // namespace size_bins
