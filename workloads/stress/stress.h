// stress.h — what every app of the `stress` binary shares: its entry (name,
// options, main), a seeded generator, the stamp written into each block and
// checked before it is freed, and the measured phase. The apps are the
// classic allocator stress programs (larson, xmalloc, Hoard's cache tests,
// mstress, rptest, sh6bench/sh8bench, glibc's bench-malloc, malloc-large,
// alloc-test), written here from their published descriptions.
#pragma once
#include <pthread.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <memprof/memprof.h>

#include "apps.h"
#include "command_line.h"
#include "key_names.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

namespace allocstamp::stress {

// Every app registers itself in its own file, after its entry (apps.h):
//   const App kLarson = {"larson", "larson options: ...", run_larson};
//   const Registration kLarsonRegistered(kLarson);
using workload::App;
using workload::Registration;

// xorshift64* seeded through splitmix: cheap, so the allocator dominates.
class Rng {
 public:
  explicit Rng(uint64_t seed) {
    uint64_t x = seed + 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    state_ = (x ^ (x >> 31)) | 1;
  }
  uint64_t next() {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 0x2545F4914F6CDD1Dull;
  }
  // Uniform in [0, bound), bound < 2^32.
  uint32_t below(uint32_t bound) { return uint32_t(((next() >> 32) * bound) >> 32); }
  // Uniform in [low, high].
  size_t between(size_t low, size_t high) { return low + below(uint32_t(high - low + 1)); }

 private:
  uint64_t state_;
};

// The stamp of a block: its size and an owner tag, written into its first
// and last 8 bytes (blocks of 16 bytes or more; smaller ones, the first byte).
inline uint64_t stamp_of(size_t size, uint64_t tag) { return (uint64_t(size) * 0x100000001B3ull) ^ (tag << 1) ^ 0x5A5A; }

inline void* stamped_alloc(size_t size, uint64_t tag) {
  auto* p = static_cast<unsigned char*>(std::malloc(size));
  if (!p) {
    std::fprintf(stderr, "stress: malloc(%zu) failed\n", size);
    std::exit(1);
  }
  uint64_t s = stamp_of(size, tag);
  if (size >= 16) {
    std::memcpy(p, &s, 8);
    std::memcpy(p + size - 8, &s, 8);
  } else {
    p[0] = static_cast<unsigned char>(s);
  }
  return p;
}

// Checks the stamp; false (and the block kept) when it was overwritten.
inline bool stamp_ok(const void* block, size_t size, uint64_t tag) {
  const auto* p = static_cast<const unsigned char*>(block);
  uint64_t s = stamp_of(size, tag), first, last;
  if (size < 16) return p[0] == static_cast<unsigned char>(s);
  std::memcpy(&first, p, 8);
  std::memcpy(&last, p + size - 8, 8);
  return first == s && last == s;
}

// The measured phase: memprof's phase and the elapsed time reported as @metric elapsed_ns.
class Phase {
 public:
  Phase() : start_(std::chrono::steady_clock::now()) { memprof::phase_begin(); }
  // Ends the phase and reports its time; returns it in nanoseconds.
  int64_t end() {
    int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_).count();
    memprof::phase_end();
    memprof::metric(keys::elapsed_ns, ns);
    return ns;
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

// A size's parameter (the workloads' common ladder): tiny (tests), small
// (the original's arguments scaled so a run takes 0.3-2 s at one thread here;
// each program's scaling is in workloads/stress/reference/programs/<program>.json),
// medium and large (the originals' own or larger).
using workload::by_size;

// Runs body(thread_index) on `threads` new threads in the parallel region and
// waits for them all.
template <typename Body>
void on_threads(int threads, Body body) {
  memprof::region parallel(MEMPROF_PAR);
  std::vector<std::thread> workers;
  workers.reserve(size_t(threads));
  for (int t = 0; t < threads; ++t) workers.emplace_back(body, t);
  for (auto& w : workers) w.join();
}

// Runs body(thread_index) on `threads` new POSIX threads and waits for them.
// For apps whose original starts its threads with pthread_create: that
// allocates nothing through malloc, where std::thread allocates its state
// (and on_threads a vector), blocks the original does not have. No region
// is set: memprof tells seq from par by the threads alive, as for the original.
template <typename Body>
void on_pthreads(int threads, Body body) {
  constexpr int kMaxThreads = 1024;  // --threads' own limit
  struct Start {
    Body* body;
    int index;
  };
  Start starts[kMaxThreads];
  pthread_t ids[kMaxThreads];
  for (int t = 0; t < threads; ++t) {
    starts[t] = {&body, t};
    int error = pthread_create(&ids[t], nullptr, [](void* start) -> void* {
      auto* s = static_cast<Start*>(start);
      (*s->body)(s->index);
      return nullptr;
    }, &starts[t]);
    if (error) {
      std::fprintf(stderr, "stress: pthread_create failed: %s\n", std::strerror(error));
      std::exit(1);
    }
  }
  for (int t = 0; t < threads; ++t) pthread_join(ids[t], nullptr);
}

// Runs `copies` copies of body(copy) at once: one copy on the calling
// thread, as the originals that run single-threaded (or take a thread count
// of 1) do; more on new POSIX threads.
template <typename Body>
void run_copies(int copies, Body body) {
  if (copies == 1) body(0);
  else on_pthreads(copies, body);
}

// Prints the app's closing line on stdout without counting its allocation:
// stdio allocates stdout's buffer at its first use, a block an original that
// prints nothing does not have.
template <typename... Args>
void summary(const char* format, Args... args) {
  memprof::ignore_begin();
  std::printf(format, args...);
  std::fflush(stdout);
  memprof::ignore_end();
}

// Reports a throughput (operations per second of the measured phase).
inline void report_rate(const char* name, uint64_t operations, int64_t ns) {
  memprof::metric(name, ns > 0 ? int64_t(double(operations) * 1e9 / double(ns)) : 0);
}

// Some originals leave blocks at exit on purpose, and the apps that follow
// them leave the same (their figures count them live). What the calling thread
// allocates while one of these lives is therefore no leak to LeakSanitizer
// (sanitized builds; elsewhere it does nothing).
class LeftAtExit {
 public:
  LeftAtExit() {
#if defined(__SANITIZE_ADDRESS__)
    __lsan_disable();
#endif
  }
  ~LeftAtExit() {
#if defined(__SANITIZE_ADDRESS__)
    __lsan_enable();
#endif
  }
  LeftAtExit(const LeftAtExit&) = delete;
  LeftAtExit& operator=(const LeftAtExit&) = delete;
};

// Exit status 3 with the reason: the app's result is wrong.
[[noreturn]] inline void verification_failed(const std::string& app, const std::string& what) {
  std::fprintf(stderr, "stress %s: verification failed: %s\n", app.c_str(), what.c_str());
  std::exit(3);
}

}  // namespace allocstamp::stress
