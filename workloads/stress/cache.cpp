// cache.cpp — Hoard's false-sharing tests. cache-thrash (active false
// sharing): each thread repeatedly allocates a small object, writes it many
// times and frees it; an allocator that gives threads neighbouring bytes of
// one cache line makes those writes fight over the line. cache-scratch
// (passive): the main thread allocates one small object per thread and hands
// it over; each thread frees it first, so an allocator that reuses that
// memory for the thread's later objects leaves them beside another thread's.
// Verified: each thread's last object holds what it wrote.
#include <atomic>
#include <thread>
#include <vector>

#include "command_line.h"
#include "stress.h"

namespace allocstamp::stress {
namespace {

struct Config {
  long iterations = 1000;  // per thread: objects allocated, written and freed
  long writes = 1000;      // writes per object
  size_t object_size = 8;
};

// Writes every byte of the object `writes` times; returns the last byte written.
unsigned char work_on(volatile unsigned char* object, const Config& c) {
  unsigned char value = 0;
  for (long w = 0; w < c.writes; ++w)
    for (size_t b = 0; b < c.object_size; ++b) object[b] = value = static_cast<unsigned char>(w + long(b));
  return value;
}

int run_cache(const std::string& app, int argc, char** argv, bool scratch) {
  Config c;
  long iterations = -1, writes = -1;
  tm::Common common = tm::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--iterations") iterations = tm::whole_number(option, value, 1, 1L << 32);
    else if (option == "--writes") writes = tm::whole_number(option, value, 1, 1L << 32);
    else if (option == "--object-size") c.object_size = size_t(tm::whole_number(option, value, 1, 1L << 20));
    else return false;
    return true;
  });
  // Hoard's own runs: 1000 iterations of 1,000,000 writes (medium).
  if (common.size == "tiny") c.iterations = 200, c.writes = 200;
  else if (common.size == "small") c.iterations = 1000, c.writes = 200000;
  else if (common.size == "medium") c.iterations = 1000, c.writes = 1000000;
  else if (common.size == "large") c.iterations = 5000, c.writes = 1000000;
  else tm::usage_error("--size takes tiny, small, medium or large, not '" + common.size + "'");
  if (iterations > 0) c.iterations = iterations;
  if (writes > 0) c.writes = writes;
  const int threads = common.threads;

  // cache-scratch: the objects the main thread hands over.
  std::vector<unsigned char*> handed(size_t(threads), nullptr);
  if (scratch)
    for (auto& p : handed) p = static_cast<unsigned char*>(std::malloc(c.object_size));
  std::atomic<long> wrong{0};
  Phase phase;
  on_threads(threads, [&](int t) {
    if (scratch) {
      work_on(handed[size_t(t)], c);
      std::free(handed[size_t(t)]);
    }
    for (long i = 0; i < c.iterations; ++i) {
      auto* object = static_cast<unsigned char*>(std::malloc(c.object_size));
      unsigned char last = work_on(object, c);
      if (object[c.object_size - 1] != last) ++wrong;
      std::free(object);
    }
  });
  int64_t ns = phase.end();
  report_rate("writes_per_s", uint64_t(threads) * uint64_t(c.iterations) * uint64_t(c.writes) * c.object_size, ns);
  if (wrong) verification_failed(app, "an object did not keep what its thread wrote");
  std::printf("stress %s: threads=%d iterations=%ld writes=%ld elapsed_ms=%.2f\n", app.c_str(), threads, c.iterations,
              c.writes, double(ns) / 1e6);
  return 0;
}

int run_scratch(const std::string& app, int argc, char** argv) { return run_cache(app, argc, argv, true); }
int run_thrash(const std::string& app, int argc, char** argv) { return run_cache(app, argc, argv, false); }

}  // namespace

const App kCacheScratch = {"cache-scratch", "cache-scratch options: [--iterations N] [--writes W] [--object-size B]",
                           run_scratch};
const App kCacheThrash = {"cache-thrash", "cache-thrash options: [--iterations N] [--writes W] [--object-size B]",
                          run_thrash};

}  // namespace allocstamp::stress
