// trace_reader.h — the one reader of allocation traces (contract/trace_format.h):
// checks the header, every chunk's checksum and the trailer, and renumbers the
// recorded addresses to dense block ids in time order, so that what `bench
// trace stats` and the replay see does not depend on the allocator that ran
// the recording. A damaged trace throws TraceError ("what — how to fix").
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "trace_format.h"

namespace allocstamp::trace {

class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One call, as the program made it. Block ids run from 1; 0 means none: a
// failed allocation, or a free of a block the recording never saw allocated.
struct Call {
  uint64_t time_ns;   // since recording started; allocations: when the call returned; frees: when it began
  uint64_t start_ns;  // realloc: when the call began; else time_ns
  uint64_t size;      // requested bytes
  uint64_t id;        // the block made (allocations, realloc) or released (frees)
  uint64_t old_id;    // realloc: the block passed in
  uint32_t align;     // aligned ops
  uint8_t op;         // Op
  uint8_t region;     // 0 seq, 1 par, 2 tx, 3 libitm's own
  bool failed;        // the allocator returned null
  bool unknown;       // a free of a block memprof never saw allocated
  bool moved;         // realloc returned another address
};

struct ThreadCalls {
  uint32_t index = 0;  // 0: the thread that started recording (the main thread)
  uint64_t start_ns = 0, end_ns = 0;
  bool ended = false;  // false: still alive when the program exited
  std::vector<Call> calls;  // in the thread's order; thread starts and ends are not calls
};

struct Trace {
  std::string program;
  uint32_t pid = 0;
  uint64_t duration_ns = 0;  // from the start of recording to the trailer
  uint64_t events = 0;
  uint64_t blocks = 0;  // ids 1..blocks
  std::vector<ThreadCalls> threads;  // by index
  // The measured phase as memprof took it: a begin mark restarts it, an end
  // mark ends it; without a begin mark it starts at 0 (memprof's start), and
  // memprof marks its end at exit when the program did not. Older traces
  // without an end mark: the trailer's time.
  uint64_t phase_begin_ns = 0, phase_end_ns = 0;
  bool phase_end_marked = false;  // by the program or at exit (false: an older trace)
};

// Reads and checks the file at `path`.
Trace read_trace(const std::string& path);

// The name of an op, for messages and text output.
const char* op_name(uint8_t op);

}  // namespace allocstamp::trace
