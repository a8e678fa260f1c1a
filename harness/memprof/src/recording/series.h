// series.h — the heap over time, with memprofile's rule: a point when the time
// resolution or the size resolution is exceeded, carrying the maximum since the
// last point; plus the RSS sampled by a background thread (MEMPROF_SERIES=1).
// Points live in one mapped buffer; when it fills, neighbours merge (the time
// resolution doubles), so memory stays bounded and nothing is written until exit.
#pragma once
#include <stdint.h>

namespace memprof::series {

struct Point {
  uint64_t t_ns;        // since memprof started
  int64_t heap_req;     // published requested bytes at the point
  int64_t heap_req_max; // maximum since the previous point
  int64_t heap_use;     // published usable bytes
  uint64_t rss_kb;      // latest sampled RSS
};

void start(uint64_t t0_ns);  // maps the buffer and starts the sampler thread
// From publish(): the heap moved; maybe a point (never blocks, never does I/O).
void on_publish(uint64_t now, int64_t heap_req, int64_t heap_req_max);
void lock();
void unlock();
void after_fork_child();
void stop();
// Points recorded (stable after stop()).
const Point* points(uint64_t* count);
uint64_t mapped_bytes(const void** base);

}  // namespace memprof::series
