/* memprof.h — the public face of libmemprof.so for programs that want to say more
 * than malloc can see: regions (seq/par), a measured phase, named scopes, metrics.
 * Every function is weak: without libmemprof preloaded, calls are cheap no-ops
 * (metrics are still written, so a run without memprof keeps its figures). */
#ifndef MEMPROF_MEMPROF_H
#define MEMPROF_MEMPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Regions for allocation counts. TX is set automatically inside transactions. */
enum memprof_region_kind { MEMPROF_SEQ = 0, MEMPROF_PAR = 1, MEMPROF_TX = 2 };

/* C programs: check that a function is there before calling it, e.g.
 *   if (memprof_phase_end) memprof_phase_end();
 * C++ programs: use the wrappers in namespace memprof at the end of this file. */

/* Sets the process-wide region for allocations made outside transactions and
 * returns the previous one. Once called, memprof stops guessing par/seq from
 * the number of live threads. */
int memprof_region(int region) __attribute__((weak));

/* Transactions that libitm does not see (a lock-based or sequential build of a
 * transactional program, another STM): the calling thread's allocations and
 * frees between begin and end count in the `tx` region, as libitm's would.
 * Nested pairs count as one transaction. */
void memprof_tx_begin(void) __attribute__((weak));
void memprof_tx_end(void) __attribute__((weak));

/* The measured phase: duration, load average and the smaps reading are taken
 * between begin and end (default: the whole process). */
void memprof_phase_begin(void) __attribute__((weak));
void memprof_phase_end(void) __attribute__((weak));

/* Named scopes on the calling thread: allocations, requested bytes, bytes still
 * held at the end and time inside; a nested scope's figures fold into its parent.
 * At most 16 nested, 64 distinct names. */
void memprof_scope_begin(const char *name) __attribute__((weak));
void memprof_scope_end(void) __attribute__((weak));

/* What the calling thread allocates and frees between these two is not the
 * program's: a harness's own bookkeeping (the trace replay's tables). A block
 * allocated inside must be freed inside, or never. */
void memprof_ignore_begin(void) __attribute__((weak));
void memprof_ignore_end(void) __attribute__((weak));

/* A value the program reports: written as "@metric <name>=<value>". */
void memprof_metric(const char *name, int64_t value) __attribute__((weak));

/* malloc_count-style queries, in requested bytes (multi-threaded: within the
 * stated peak bound). */
int64_t memprof_current_bytes(void) __attribute__((weak));
int64_t memprof_peak_bytes(void) __attribute__((weak));
void memprof_reset_peak(void) __attribute__((weak));

/* Non-zero when libmemprof.so is loaded. */
static inline int memprof_active(void) { return memprof_region != 0; }

/* Writes a whole record line ("@kind key=value ...\n") where memprof writes
 * its records: for programs that report more than metrics (the micro
 * benchmarks' @micro lines). */
void memprof_record(const char *line) __attribute__((weak));

/* Without memprof loaded: a record line goes where memprof's would
 * (MEMPROF_OUT=fd:N or a path), else to stderr. */
static inline void memprof_write_record_unloaded(const char *line, size_t n) {
  const char *out = getenv("MEMPROF_OUT");
  int fd = 2;
  if (out && strncmp(out, "fd:", 3) == 0) {
    fd = atoi(out + 3);
  } else if (out && *out) {
    FILE *f = fopen(out, "a");
    if (f) {
      fputs(line, f);
      fclose(f);
      return;
    }
  }
  ssize_t ignored = write(fd, line, n);
  (void)ignored;
}

/* Reports a record line with or without memprof loaded. */
static inline void memprof_report_record(const char *line) {
  if (memprof_record) {
    memprof_record(line);
    return;
  }
  memprof_write_record_unloaded(line, strlen(line));
}

/* Reports a metric with or without memprof loaded. */
static inline void memprof_report_metric(const char *name, int64_t value) {
  if (memprof_metric) {
    memprof_metric(name, value);
    return;
  }
  char line[256];
  int n = snprintf(line, sizeof line, "@metric %s=%lld\n", name, (long long)value);
  if (n <= 0 || n >= (int)sizeof line) return;
  memprof_write_record_unloaded(line, (size_t)n);
}

#ifdef __cplusplus
} /* extern "C" */
#endif

/* Simulated runs (bench --simulate) run the program under valgrind's callgrind
 * with instrumentation off until the measured phase begins, so that only the
 * phase's instructions and cache misses are counted. The phase marks below
 * carry callgrind's client requests for that: outside valgrind each is a few
 * instructions (a rotate sequence that does nothing), run once per mark.
 * Without valgrind's headers (Debian package valgrind) they are absent, and a
 * simulated run of the program fails, saying so. */
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define MEMPROF_SIMULATED_PHASE_BEGIN() CALLGRIND_START_INSTRUMENTATION
#define MEMPROF_SIMULATED_PHASE_END() CALLGRIND_STOP_INSTRUMENTATION
#endif
#endif
#ifndef MEMPROF_SIMULATED_PHASE_BEGIN
#define MEMPROF_SIMULATED_PHASE_BEGIN() ((void)0)
#define MEMPROF_SIMULATED_PHASE_END() ((void)0)
#endif

#if defined(__cplusplus) && !defined(MEMPROF_BUILDING_LIBRARY)
namespace memprof {
/* Safe calls: no-ops when libmemprof.so is not loaded. The phase marks also
 * start and stop a simulated run's counting (above): memprof's own work at the
 * marks stays outside it. */
inline void phase_begin() {
  if (memprof_phase_begin) memprof_phase_begin();
  MEMPROF_SIMULATED_PHASE_BEGIN();
}
inline void phase_end() {
  MEMPROF_SIMULATED_PHASE_END();
  if (memprof_phase_end) memprof_phase_end();
}
inline void tx_begin() { if (memprof_tx_begin) memprof_tx_begin(); }
inline void tx_end() { if (memprof_tx_end) memprof_tx_end(); }
inline void metric(const char *name, int64_t value) { memprof_report_metric(name, value); }
inline void record(const char *line) { memprof_report_record(line); }
inline int64_t current_bytes() { return memprof_current_bytes ? memprof_current_bytes() : -1; }
inline int64_t peak_bytes() { return memprof_peak_bytes ? memprof_peak_bytes() : -1; }
inline void reset_peak() { if (memprof_reset_peak) memprof_reset_peak(); }
inline void ignore_begin() { if (memprof_ignore_begin) memprof_ignore_begin(); }
inline void ignore_end() { if (memprof_ignore_end) memprof_ignore_end(); }

/* RAII form of memprof_scope_begin/end. */
class scope {
 public:
  explicit scope(const char *name) { if (memprof_scope_begin) memprof_scope_begin(name); }
  ~scope() { if (memprof_scope_end) memprof_scope_end(); }
  scope(const scope &) = delete;
  scope &operator=(const scope &) = delete;
};

/* RAII form of a region: restores the previous region on exit. */
class region {
 public:
  explicit region(int r) : previous_(memprof_region ? memprof_region(r) : r) {}
  ~region() { if (memprof_region) memprof_region(previous_); }
  region(const region &) = delete;
  region &operator=(const region &) = delete;
 private:
  int previous_;
};
}  // namespace memprof
#endif

#endif /* MEMPROF_MEMPROF_H */
