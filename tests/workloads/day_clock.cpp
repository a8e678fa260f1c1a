// day_clock — a workload whose measured phase lasts a day of its own clock,
// for the test that memprof's load accounting holds a day-long run
// (tests/driver: DayClock.*). The program defines clock_gettime itself and
// exports it, so every caller in the process — memprof's now_ns() included —
// reads the real monotonic clock plus an offset that only this program
// advances: the load integral of a day is made in milliseconds.
//
// Contract 3: day_clock day [--threads N] [--size S] [--seed S] [--gib G] [--hours H]
//                           [--before-hours B]
//   holds G blocks of 1 GiB (default 24; untouched, so nothing is resident),
//   moves its clock B hours on before the phase (default 0: the heap's load
//   before the phase is not the phase's), begins the phase, moves its clock
//   H hours on (default 24), ends the phase, reports elapsed_ns (by its own
//   clock) and frees the blocks.
// Its load: G GiB x H hours; G = 24, H = 24 gives 2.2e24 byte·ns, past 2^64.
#include <memprof/memprof.h>

#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

// Added to CLOCK_MONOTONIC (and its variants: what memprof and the program read).
std::atomic<int64_t> offset_ns{0};

int64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "day_clock: %s\nusage: day_clock day [--threads N] [--size S] [--seed S] [--gib G] [--hours H] [--before-hours B]\n",
               why);
  std::exit(2);
}

uint64_t number_after(int& i, int argc, char** argv) {
  if (i + 1 >= argc) usage("a flag lacks its value");
  char* end = nullptr;
  const unsigned long long v = std::strtoull(argv[++i], &end, 10);
  if (*end != '\0') usage("a value is not a whole number");
  return v;
}

}  // namespace

// Every clock_gettime in the process. No allocation: memprof calls it inside malloc.
extern "C" __attribute__((visibility("default"))) int clock_gettime(clockid_t id, struct timespec* ts) {
  const long r = syscall(SYS_clock_gettime, id, ts);
  if (r != 0) return -1;
  if (id == CLOCK_MONOTONIC || id == CLOCK_MONOTONIC_RAW || id == CLOCK_BOOTTIME || id == CLOCK_MONOTONIC_COARSE) {
    const int64_t ns = int64_t(ts->tv_sec) * 1000000000 + ts->tv_nsec + offset_ns.load(std::memory_order_relaxed);
    ts->tv_sec = ns / 1000000000;
    ts->tv_nsec = ns % 1000000000;
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "day") != 0) usage("the app is 'day'");
  uint64_t gib = 24, hours = 24, before_hours = 0;
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--gib") gib = number_after(i, argc, argv);
    else if (flag == "--hours") hours = number_after(i, argc, argv);
    else if (flag == "--before-hours") before_hours = number_after(i, argc, argv);
    else if (flag == "--threads" || flag == "--seed" || flag == "--size") ++i;  // one thread, no input
    else usage(("unknown flag " + flag).c_str());
  }
  std::vector<void*> blocks;
  for (uint64_t g = 0; g < gib; ++g) {
    void* p = std::malloc(size_t(1) << 30);
    if (!p) {
      std::fprintf(stderr, "day_clock: could not reserve block %llu of 1 GiB\n", static_cast<unsigned long long>(g));
      return 1;
    }
    blocks.push_back(p);
  }
  offset_ns.fetch_add(int64_t(before_hours) * 3600 * 1000000000, std::memory_order_relaxed);
  memprof::phase_begin();
  const int64_t start = monotonic_ns();
  offset_ns.fetch_add(int64_t(hours) * 3600 * 1000000000, std::memory_order_relaxed);
  const int64_t elapsed = monotonic_ns() - start;
  memprof::phase_end();
  memprof::metric("elapsed_ns", elapsed);
  for (void* p : blocks) std::free(p);
  return 0;
}
