// clock.h — the one clock memprof reads: CLOCK_MONOTONIC in nanoseconds, for
// publishing, scopes, the series, the trace and the measured phase (the trace
// header names the same clock, so its times and memprof's are one scale).
#pragma once
#include <stdint.h>
#include <time.h>

namespace memprof {

inline uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

}  // namespace memprof
