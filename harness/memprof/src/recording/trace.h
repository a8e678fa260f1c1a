// trace.h — MEMPROF_TRACE=path: every allocation call the recorder counts is
// also appended, as one fixed-size event (contract/trace_format.h), to its
// thread's buffer; a full buffer goes to the file with one write(). The buffer
// is mapped with mmap (no malloc), no lock is taken, and the counts memprof
// reports are the same with or without the trace. While tracing, every call
// takes the careful path (the hot path has no room for the event).
// A forked child stops recording (its parent's file is not its own), and so do
// the programs it execs (the variable is removed from the environment). The
// traced process itself follows exec (exec_hooks.cpp): the new program gets
// the variable back and starts the file again, so a wrapper — a pyenv shim,
// env, nice, a launch script — leaves the trace of the program it runs.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "recording/thread_state.h"
#include "trace_format.h"

namespace memprof::trace {

using namespace allocstamp::trace;  // the ops

// Opens the file and writes the header (the constructor, on the main thread);
// event times count from `zero_ns`, memprof's start. A path that cannot be
// written warns once; nothing is recorded then.
void start(uint64_t zero_ns);
// Flushes every thread's buffer and writes the trailer (the destructor).
void finish();
// In a forked child: stop, write nothing.
void stop_in_child();

// Before the traced process execs: flushes every thread's buffer and writes
// the trailer (a new program without memprof leaves a complete trace of this
// one); returns the file's length before the trailer, or -1 when this process
// is not tracing (a forked child, no MEMPROF_TRACE).
long end_before_exec();
// "MEMPROF_TRACE=<path>" for the new program's environment.
const char* exec_variable();
// The exec failed: the trailer is cut off again and recording goes on.
void exec_failed(long length);

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
// The measured phase began or ended (op kPhaseBegin or kPhaseEnd) at `at_ns`,
// the time memprof's phase took: memprof_phase_begin/end, and the end at exit.
void on_phase(ThreadState& t, uint8_t op, uint64_t at_ns);

}  // namespace memprof::trace
