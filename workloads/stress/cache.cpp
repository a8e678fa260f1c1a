// cache.cpp — Hoard's false-sharing tests as mimalloc-bench builds and runs
// them (bench/cache-scratch, bench/cache-thrash). Each of T threads runs
// `iterations` times over `repetitions / T` passes of `object_size` writes;
// cache-scratch's threads first free an object the main thread allocated for
// them. In the sources each iteration also allocates the object it writes and
// frees it; but that block never escapes, so g++ (10 and later, -O2) and clang
// delete the new[]/delete[] pair and the store (C++14 lets them), and the
// write lands on the stack. mimalloc-bench's binaries therefore allocate only
// in main: the thread handles, the threads' argument blocks and, for
// cache-scratch, one object per thread and the array holding them. This file
// allocates exactly those, in that order, and runs what the compiled loop runs.
#include <pthread.h>

#include <atomic>

#include "command_line.h"
#include "stress.h"

namespace allocstamp::stress {
namespace {

// The threads' argument blocks, laid out as the originals' are, since their
// arrays are among the few allocations: 12 bytes for cache-thrash, 24 for
// cache-scratch (its handed object's pointer in front; the thread's index
// sits where the original has padding).
struct ThrashArgument {
  int object_size, iterations, repetitions;
};
struct ScratchArgument {
  unsigned char* handed;
  int object_size, iterations, repetitions, thread;
};
static_assert(sizeof(ThrashArgument) == 12 && sizeof(ScratchArgument) == 24);

std::atomic<long> passes_done{0};

// What one iteration of the originals executes once compiled: per pass, a
// volatile byte on the stack is set to the index and incremented, per byte of
// the object. Counts the passes, for the verification.
template <typename Argument>
void run_iterations(const Argument& a) {
  for (int i = 0; i < a.iterations; ++i)
    for (int j = 0; j < a.repetitions; ++j)
      for (int k = 0; k < a.object_size; ++k) {
        volatile char ch = static_cast<char>(k);
        ch = static_cast<char>(ch + 1);
      }
  passes_done += long(a.iterations) * a.repetitions;
}

// The main thread marks each object it hands over; the thread checks the mark
// before freeing it (the original frees it with a sized scalar delete).
unsigned char mark_of(int thread) { return static_cast<unsigned char>(0xA5 ^ thread); }
std::atomic<long> marks_lost{0};

void* scratch_worker(void* argument) {
  const ScratchArgument a = *static_cast<ScratchArgument*>(argument);
  if (a.handed[0] != mark_of(a.thread)) ++marks_lost;
  ::operator delete[](a.handed, size_t(a.object_size));
  run_iterations(a);
  return nullptr;
}

void* thrash_worker(void* argument) {
  run_iterations(*static_cast<ThrashArgument*>(argument));
  return nullptr;
}

int run_cache(const std::string& app, int argc, char** argv, bool scratch) {
  long iterations = -1, repetitions = -1, object_size = 1;
  workload::Common common = workload::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--iterations") iterations = workload::whole_number(option, value, 1, 1L << 30);
    else if (option == "--repetitions") repetitions = workload::whole_number(option, value, 1, 1L << 30);
    else if (option == "--object-size") object_size = workload::whole_number(option, value, 1, 1L << 20);
    else return false;
    return true;
  });
  // small: bench.sh's `1000 1 2000000` (1.4 s here); medium and large: Hoard's documented runs.
  if (iterations < 0) iterations = by_size(common.size, 100, 1000, 1000, 5000);
  if (repetitions < 0) repetitions = by_size(common.size, 100000, 2000000, 1000000, 1000000);
  const int threads = common.threads;
  const int per_thread = int(repetitions / threads);  // the originals split the repetitions among the threads

  Phase phase;  // the originals are timed whole; everything after the command line is here
  auto* handles = static_cast<pthread_t*>(std::calloc(size_t(threads), sizeof(pthread_t)));
  ScratchArgument* scratch_arguments = nullptr;
  ThrashArgument* thrash_arguments = nullptr;
  unsigned char** handed = nullptr;
  if (scratch) {
    scratch_arguments = new ScratchArgument[size_t(threads)];
    handed = new unsigned char*[size_t(threads)];
    for (int t = 0; t < threads; ++t) {
      handed[t] = new unsigned char[size_t(object_size)];
      handed[t][0] = mark_of(t);
    }
  } else {
    thrash_arguments = new ThrashArgument[size_t(threads)];
  }
  {
    memprof::region parallel(MEMPROF_PAR);
    for (int t = 0; t < threads; ++t) {
      int started;
      if (scratch) {
        scratch_arguments[t] = {handed[t], int(object_size), int(iterations), per_thread, t};
        started = pthread_create(&handles[t], nullptr, scratch_worker, &scratch_arguments[t]);
      } else {
        thrash_arguments[t] = {int(object_size), int(iterations), per_thread};
        started = pthread_create(&handles[t], nullptr, thrash_worker, &thrash_arguments[t]);
      }
      if (started != 0) {
        std::fprintf(stderr, "stress %s: pthread_create failed (%s)\n", app.c_str(), std::strerror(started));
        std::exit(1);
      }
    }
    for (int t = 0; t < threads; ++t) pthread_join(handles[t], nullptr);
  }
  std::free(handles);
  delete[] handed;
  delete[] scratch_arguments;
  delete[] thrash_arguments;
  int64_t ns = phase.end();

  report_rate("writes_per_s", uint64_t(threads) * uint64_t(iterations) * uint64_t(per_thread) * uint64_t(object_size),
              ns);
  if (passes_done != long(threads) * iterations * per_thread)
    verification_failed(app, "a thread did not run all its passes");
  if (marks_lost) verification_failed(app, "an object handed to a thread lost the main thread's mark");
  memprof::ignore_begin();  // stdout's buffer is the harness's, not the program's (the originals print nothing)
  std::printf("stress %s: threads=%d iterations=%ld repetitions=%d per thread elapsed_ms=%.2f\n", app.c_str(), threads,
              iterations, per_thread, double(ns) / 1e6);
  std::fflush(stdout);
  memprof::ignore_end();
  return 0;
}

int run_scratch(const std::string& app, int argc, char** argv) { return run_cache(app, argc, argv, true); }
int run_thrash(const std::string& app, int argc, char** argv) { return run_cache(app, argc, argv, false); }

}  // namespace

const App kCacheScratch = {"cache-scratch",
                           "cache-scratch options: [--iterations N] [--repetitions R (shared by the threads)] "
                           "[--object-size B]",
                           run_scratch};
const Registration kCacheScratchRegistered(kCacheScratch);
const App kCacheThrash = {"cache-thrash",
                          "cache-thrash options: [--iterations N] [--repetitions R (shared by the threads)] "
                          "[--object-size B]",
                          run_thrash};
const Registration kCacheThrashRegistered(kCacheThrash);

}  // namespace allocstamp::stress
