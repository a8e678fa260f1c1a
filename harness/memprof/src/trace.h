// trace.h — MEMPROF_TRACE=path: every allocation call the recorder counts is
// also appended, as one fixed-size event (contract/trace_format.h), to its
// thread's buffer; a full buffer goes to the file with one write(). The buffer
// is mapped with mmap (no malloc), no lock is taken, and the counts memprof
// reports are the same with or without the trace. While tracing, every call
// takes the careful path (the hot path has no room for the event).
// A forked child stops recording (its parent's file is not its own); a program
// it execs is not traced (the variable is removed from the environment).
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "recorder.h"
#include "trace_format.h"

namespace memprof::trace {

using namespace allocstamp::trace;  // the ops

// Opens the file and writes the header (the constructor, on the main thread).
// A path that cannot be written warns once; nothing is recorded then.
void start();
// Flushes every thread's buffer and writes the trailer (the destructor).
void finish();
// In a forked child: stop, write nothing.
void stop_in_child();

// The hook about to call the allocator says what the program called.
inline void note_call(ThreadState& t, uint8_t op, uint32_t extra = 0) {
  if (__builtin_expect(shared.tracing, 0)) {
    t.call_op = op;
    t.call_extra = extra;
  }
}

void on_alloc(ThreadState& t, void* p, size_t n, int region);
void on_free(ThreadState& t, void* p, size_t n, int region, bool known);
void on_realloc(ThreadState& t, void* p, void* q, size_t n, int region);
void on_thread_end(ThreadState& t);
// memprof_phase_begin/end (op kPhaseBegin or kPhaseEnd).
void on_phase(ThreadState& t, uint8_t op);

}  // namespace memprof::trace
