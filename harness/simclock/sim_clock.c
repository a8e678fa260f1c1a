/* sim_clock.c — libsim_clock.so, the clock a simulated run's program reads.
 * Preloaded in front of the allocator in every simulated run (bench --simulate,
 * run/simulation.h). Under valgrind a program runs some 50 times slower than
 * natively, so an allocator that acts on elapsed time (jemalloc's decay of
 * dirty pages, mimalloc's purge delay) does more or less of it from run to run
 * as the host's load changes, and its simulated cost with it: jemalloc's
 * mstress at one thread took two different instruction counts and last-level
 * miss counts in runs of one build. Here every clock_gettime, gettimeofday and
 * time call advances a process-wide virtual clock by exactly one microsecond,
 * so what the program sees of time depends only on how often it asks: the
 * same calls give the same times, and the simulated cost repeats. Each clock
 * starts from its real value when the process first asks for it, so absolute
 * deadlines (a timed wait) stay near the kernel's clocks. Random bytes too:
 * getrandom, through libc's getrandom() or syscall(SYS_getrandom) as
 * mimalloc asks, returns a fixed sequence, so an allocator that places pages
 * by random numbers places them alike in every run (mimalloc's first-level
 * misses moved by up to 7% between runs without it). Plain C, no
 * allocation: it runs inside allocators. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <errno.h>

#define VISIBLE __attribute__((visibility("default")))

enum { kClocks = 16, kStepNs = 1000 };

static uint64_t ticks;             /* calls so far, every clock together */
static int64_t start_ns[kClocks];  /* each clock's real value at its first call; 0: not yet */

static int64_t real_ns(clockid_t id) {
  struct timespec ts;
  if (syscall(SYS_clock_gettime, id, &ts) != 0) return -1;
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

VISIBLE int clock_gettime(clockid_t id, struct timespec *ts) {
  if (id < 0 || id >= kClocks) return (int)syscall(SYS_clock_gettime, id, ts);  /* a CPU-time clock of a thread */
  int64_t start = __atomic_load_n(&start_ns[id], __ATOMIC_ACQUIRE);
  if (start == 0) {
    int64_t now = real_ns(id);
    if (now < 0) return (int)syscall(SYS_clock_gettime, id, ts);  /* EINVAL for the caller, as the kernel says */
    int64_t expected = 0;
    __atomic_compare_exchange_n(&start_ns[id], &expected, now, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    start = __atomic_load_n(&start_ns[id], __ATOMIC_ACQUIRE);
  }
  const uint64_t n = __atomic_add_fetch(&ticks, 1, __ATOMIC_RELAXED);
  const int64_t t = start + (int64_t)(n * kStepNs);
  ts->tv_sec = t / 1000000000;
  ts->tv_nsec = t % 1000000000;
  return 0;
}

/* glibc declares tv nonnull; a caller may still pass NULL, as the kernel allows. */
#pragma GCC diagnostic ignored "-Wnonnull-compare"
VISIBLE int gettimeofday(struct timeval *tv, void *tz) {
  (void)tz;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  if (tv) {
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = ts.tv_nsec / 1000;
  }
  return 0;
}

VISIBLE time_t time(time_t *out) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  if (out) *out = ts.tv_sec;
  return ts.tv_sec;
}

/* The fixed random bytes: splitmix64 from a constant seed, shared by the
 * process's threads (the same calls in the same order give the same bytes). */
static uint64_t random_state = 0x5eed5eed5eed5eedULL;

static void fixed_random(void *buffer, size_t length) {
  unsigned char *out = buffer;
  for (size_t i = 0; i < length; i += 8) {
    uint64_t z = __atomic_add_fetch(&random_state, 0x9e3779b97f4a7c15ULL, __ATOMIC_RELAXED);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    for (size_t k = 0; k < 8 && i + k < length; ++k) out[i + k] = (unsigned char)(z >> (8 * k));
  }
}

VISIBLE ssize_t getrandom(void *buffer, size_t length, unsigned int flags) {
  (void)flags;
  fixed_random(buffer, length);
  return (ssize_t)length;
}

/* syscall(2)'s libc wrapper: SYS_getrandom answered as above, every other
 * call passed to the kernel with its six argument registers. */
VISIBLE long syscall(long number, ...) {
  va_list ap;
  va_start(ap, number);
  long a[6];
  for (int i = 0; i < 6; ++i) a[i] = va_arg(ap, long);
  va_end(ap);
  if (number == SYS_getrandom) {
    fixed_random((void *)a[0], (size_t)a[1]);
    return a[1];
  }
  long result;
  register long r10 __asm__("r10") = a[3];
  register long r8 __asm__("r8") = a[4];
  register long r9 __asm__("r9") = a[5];
  __asm__ volatile("syscall"
                   : "=a"(result)
                   : "a"(number), "D"(a[0]), "S"(a[1]), "d"(a[2]), "r"(r10), "r"(r8), "r"(r9)
                   : "rcx", "r11", "memory");
  if (result < 0 && result > -4096) {
    errno = (int)-result;
    return -1;
  }
  return result;
}
