// options.h — every MEMPROF_* setting in one table, read once from the environment
// without allocating; a bad value warns once and keeps the default.
#pragma once
#include <stdint.h>

#include "memprof_limits.h"

namespace memprof {

struct Options {
  char out[ALLOCSTAMP_MEMPROF_PATH_BYTES];                 // MEMPROF_OUT: "fd:N", a path, or empty for a text summary on stderr
  uint64_t peak_slack_bytes;     // MEMPROF_PEAK_SLACK: per-thread bytes kept local before publishing
  bool track_heap;               // MEMPROF_HEAP: keep each block's size (heap figures, peaks, load)
  bool track_usable;             // MEMPROF_USABLE: keep usable bytes (usable.h) of every block
  bool series;                   // MEMPROF_SERIES: keep a time series of the heap and RSS
  uint64_t series_time_ms;       // MEMPROF_SERIES_MS: time resolution of the series
  uint64_t series_size_bytes;    // MEMPROF_SERIES_SIZE: size resolution of the series
  uint64_t series_max_points;    // MEMPROF_SERIES_MAX: points kept before halving the resolution
  bool fork_report;              // MEMPROF_FORK_REPORT: a forked child (no exec) prints its own summary
  char only[256];                // MEMPROF_ONLY: comma-separated program names that report (empty: all)
  bool verbose;                  // MEMPROF_VERBOSE: print the effective options at start
  uint64_t sample_bytes;         // MEMPROF_SAMPLE_BYTES: mean bytes between sampled call sites; 0 = off (sampling.h)
  char callsites[ALLOCSTAMP_MEMPROF_PATH_BYTES];           // MEMPROF_CALLSITES: where the sampled stacks go at exit
  char trace[ALLOCSTAMP_MEMPROF_PATH_BYTES];               // MEMPROF_TRACE: a path to record every call to (trace.h); empty = none
};

extern Options options;

// Reads the environment into `options`. Safe to call inside malloc.
void load_options();
// Writes the effective options to stderr (MEMPROF_VERBOSE).
void print_options();

}  // namespace memprof
