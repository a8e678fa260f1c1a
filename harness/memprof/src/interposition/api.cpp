// api.cpp — the functions of include/memprof/memprof.h, as libmemprof.so
// defines them (the header declares them weak for programs run without it).
#define MEMPROF_BUILDING_LIBRARY 1  // the C++ wrappers would shadow our own names
#include <memprof/memprof.h>

#include <string.h>

#include "base/text.h"
#include "interposition/exports.h"
#include "output/lifecycle.h"
#include "recording/heap.h"
#include "recording/registry.h"
#include "recording/scopes.h"
#include "recording/trace.h"

using namespace memprof;


extern "C" MEMPROF_EXPORT int memprof_region(int region) {
  ensure_ready();
  if (region < MEMPROF_SEQ || region > MEMPROF_PAR) region = MEMPROF_SEQ;
  int previous = shared.region.load(std::memory_order_relaxed);
  shared.explicit_region.store(region, std::memory_order_relaxed);
  shared.region_explicit.store(true, std::memory_order_release);
  shared.region.store(region, std::memory_order_relaxed);
  return previous;
}

extern "C" MEMPROF_EXPORT void memprof_phase_begin(void) {
  ensure_ready();
  begin_measured_phase();
  trace::on_phase(current_thread(), trace::kPhaseBegin, measured_phase().begin_ns);
}

extern "C" MEMPROF_EXPORT void memprof_phase_end(void) {
  ensure_ready();
  end_measured_phase(true);
  trace::on_phase(current_thread(), trace::kPhaseEnd, measured_phase().end_ns);
}

extern "C" MEMPROF_EXPORT void memprof_tx_begin(void) {
  ensure_ready();
  ThreadState& t = current_thread();
  ++t.tx_marked;
  refresh_slow(t);
}

extern "C" MEMPROF_EXPORT void memprof_tx_end(void) {
  ensure_ready();
  ThreadState& t = current_thread();
  if (t.tx_marked != 0) --t.tx_marked;
  refresh_slow(t);
}

// The nesting guard the hooks take: calls inside it only forward.
extern "C" MEMPROF_EXPORT void memprof_ignore_begin(void) {
  ensure_ready();
  ++current_thread().depth;
}

extern "C" MEMPROF_EXPORT void memprof_ignore_end(void) {
  ThreadState& t = current_thread();
  if (t.depth != 0) --t.depth;
}

extern "C" MEMPROF_EXPORT void memprof_scope_begin(const char* name) {
  ensure_ready();
  scope_begin(current_thread(), name ? name : "?");
}

extern "C" MEMPROF_EXPORT void memprof_scope_end(void) {
  ensure_ready();
  scope_end(current_thread());
}

extern "C" MEMPROF_EXPORT void memprof_metric(const char* name, int64_t value) {
  ensure_ready();
  text::Line line;
  line.add("@metric ").add(name).add('=').snum(value).add('\n');
  int fd = output_fd();
  line.write_to(fd >= 0 ? fd : 2);
}

extern "C" MEMPROF_EXPORT void memprof_record(const char* line) {
  ensure_ready();
  if (!line || line[0] != '@') return;  // not a record
  int fd = output_fd();
  text::write_all(fd >= 0 ? fd : 2, line, strlen(line));  // whole, through short writes and signals
}

extern "C" MEMPROF_EXPORT int64_t memprof_current_bytes(void) {
  ensure_ready();
  return current_requested(current_thread());
}

extern "C" MEMPROF_EXPORT int64_t memprof_peak_bytes(void) {
  ensure_ready();
  return peak_requested(current_thread());
}

extern "C" MEMPROF_EXPORT void memprof_reset_peak(void) {
  ensure_ready();
  reset_requested_peak(current_thread());
}
