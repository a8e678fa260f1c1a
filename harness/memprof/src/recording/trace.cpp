// trace.cpp — the MEMPROF_TRACE recorder (trace.h): one mmap'd chunk buffer
// per thread, written whole with one write() on an O_APPEND descriptor, so
// chunks of different threads never interleave inside one another. One thread
// may close the trace for a moment (an exec, which ends it with a trailer and
// takes the trailer back if it fails; the end): the others wait at the door
// (Door) meanwhile, so no buffer is written by two threads and no chunk lands
// behind a trailer.
#include "recording/trace.h"

#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include <atomic>

#include "base/options.h"
#include "base/text.h"
#include "os/clock.h"
#include "os/files.h"
#include "os/process.h"
#include "os/raw_syscalls.h"
#include "recording/registry.h"

namespace memprof::trace {
namespace {

using namespace allocstamp::trace;

struct Buffer {
  TraceChunk head;  // the events follow it directly: one write covers both
  TraceEvent events[kEventsPerChunk];
};
static_assert(sizeof(TraceChunk) % alignof(TraceEvent) == 0, "chunk and events are contiguous");

int fd = -1;
uint64_t start_ns = 0;
char variable[sizeof(Options::trace) + 16];
pid_t tracing_pid = 0;  // a vfork child shares our memory (no fork handler runs): it is told apart by its pid  // "MEMPROF_TRACE=<path>", for a program this one execs in place
constinit std::atomic<uint32_t> next_thread{0};
constinit std::atomic<uint64_t> events_written{0};
constinit std::atomic<bool> write_failed{false};

// The door every event goes through. Closed (`closing`) by one thread, the
// `closer`, which then waits until no other thread is inside and may flush
// every thread's buffer; others wait until it opens again, or give up their
// event when the trace has ended meanwhile. A live thread (in the registry)
// says it is inside in its own ThreadState (trace_in_door), no line shared
// between threads; a thread out of the registry (ended, in glibc's teardown)
// counts itself in `unlisted_inside`. Dekker's pairing: the thread stores its
// flag then loads `closing`, the closer stores `closing` then loads the flags.
// The fence that pairing needs is the closer's alone where the kernel offers
// membarrier (Linux 4.14): it makes every running thread pass a full barrier,
// so a thread's side is a plain store and load (a fence an event cost traced
// churn at 2 threads about 25% of its time); elsewhere both sides fence.
constinit std::atomic<bool> closing{false};
constinit std::atomic<int> unlisted_inside{0};
constinit std::atomic<const ThreadState*> closer{nullptr};
bool asymmetric = false;  // membarrier registered: the closer fences for every thread

// Slow path of the door: it is closing. The closer itself passes; another
// thread steps out and waits until it opens, then tries again; false when the
// trace ended meanwhile (the event is not written).
bool door_wait(ThreadState& t, bool listed);

// Enters the door: true when the thread may write its events (then
// door_leave), false when the trace has ended.
inline bool door_enter(ThreadState& t, bool listed) {
  if (__builtin_expect(listed, 1)) {
    if (asymmetric) {
      __atomic_store_n(&t.trace_in_door, uint8_t(1), __ATOMIC_RELAXED);
      std::atomic_signal_fence(std::memory_order_seq_cst);  // the compiler keeps the order; membarrier the CPU's
    } else {
      __atomic_store_n(&t.trace_in_door, uint8_t(1), __ATOMIC_SEQ_CST);
    }
  } else {
    unlisted_inside.fetch_add(1, std::memory_order_seq_cst);
  }
  if (__builtin_expect(!closing.load(std::memory_order_seq_cst), 1)) return true;
  return door_wait(t, listed);
}

inline void door_leave(ThreadState& t, bool listed) {
  if (__builtin_expect(listed, 1)) __atomic_store_n(&t.trace_in_door, uint8_t(0), __ATOMIC_RELEASE);
  else unlisted_inside.fetch_sub(1, std::memory_order_release);
}

bool door_wait(ThreadState& t, bool listed) {
  // The closing thread's own calls (a handful inside execvp) stay in its buffer.
  if (closer.load(std::memory_order_acquire) == &t) return true;
  door_leave(t, listed);
  while (closing.load(std::memory_order_acquire)) sched_yield();
  if (!shared.tracing) return false;  // the trace ended while this thread waited
  return door_enter(t, listed);
}

// The door around one event of thread `t`: `passed` says whether to write it.
class Door {
 public:
  explicit Door(ThreadState& t) : t_(t), listed_(t.status == kLive), passed_(door_enter(t, listed_)) {}
  ~Door() {
    if (passed_) door_leave(t_, listed_);
  }
  bool passed() const { return passed_; }

 private:
  ThreadState& t_;
  const bool listed_;
  const bool passed_;
};

// Closes the door for the calling thread `t`, once no other thread is inside:
// called with the registry locked (the threads listed stay listed).
void close_door(const ThreadState& t) {
  closer.store(&t, std::memory_order_release);
  closing.store(true, std::memory_order_seq_cst);
  if (asymmetric) process::fence_all_threads();
  for (ThreadState* other = registry::first(); other; other = other->next)
    while (other != &t && __atomic_load_n(&other->trace_in_door, __ATOMIC_SEQ_CST) != 0) sched_yield();
  while (unlisted_inside.load(std::memory_order_seq_cst) != 0) sched_yield();
}

void open_door() {
  closer.store(nullptr, std::memory_order_release);
  closing.store(false, std::memory_order_release);
}

void write_chunk(TraceChunk* head, uint32_t thread, uint32_t count) {
  if (count == 0 || fd < 0) return;
  const auto* events = reinterpret_cast<const TraceEvent*>(head + 1);
  head->magic = kChunkMagic;
  head->thread = thread;
  head->count = count;
  head->checksum = checksum(events, uint64_t(count) * sizeof(TraceEvent));
  if (!text::write_all(fd, reinterpret_cast<const char*>(head), sizeof(TraceChunk) + count * sizeof(TraceEvent))) {
    if (!write_failed.exchange(true)) {
      text::Line line;
      line.add("memprof: warning: MEMPROF_TRACE: a write failed (disk full?); the trace is incomplete\n");
      line.write_to(2);
    }
    return;
  }
  events_written.fetch_add(count, std::memory_order_relaxed);
}

void flush(ThreadState& t) {
  auto* b = static_cast<Buffer*>(t.trace_buffer);
  if (!b) return;
  write_chunk(&b->head, t.trace_thread, t.trace_count);
  t.trace_count = 0;
}

inline void append(ThreadState& t, const TraceEvent& e);

TraceEvent event(uint8_t op, uint64_t addr, uint64_t old_addr, uint64_t size, int region, uint32_t extra = 0,
                 uint16_t flags = 0) {
  TraceEvent e;
  e.time_ns = now_ns() - start_ns;
  e.addr = addr;
  e.old_addr = old_addr;
  e.size = size;
  e.extra = extra;
  e.op = op;
  e.region = uint8_t(region);
  e.flags = flags;
  return e;
}

void write_one(ThreadState& t, const TraceEvent& e) {
  struct {
    TraceChunk head;
    TraceEvent event;
  } one{{}, e};
  write_chunk(&one.head, t.trace_thread, 1);
}

// A thread's first event: its index, its start, and (while it lives) its buffer.
bool open_thread(ThreadState& t) {
  if (!t.trace_opened) {
    t.trace_opened = true;
    t.trace_thread = next_thread.fetch_add(1, std::memory_order_relaxed);
    write_one(t, event(kThreadStart, 0, 0, 0, 0));
  }
  if (t.status == kExited) return true;
  void* m = raw::mmap(nullptr, sizeof(Buffer), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return false;
  t.trace_buffer = m;
  t.trace_count = 0;
  return true;
}

__attribute__((always_inline)) inline void append(ThreadState& t, const TraceEvent& e) {
  if (__builtin_expect(t.trace_buffer == nullptr, 0)) {
    if (!open_thread(t)) return;
    if (t.status == kExited) {  // glibc's teardown after the thread's end: written at once
      write_one(t, e);
      return;
    }
  }
  auto* b = static_cast<Buffer*>(t.trace_buffer);
  b->events[t.trace_count++] = e;
  if (t.trace_count == kEventsPerChunk) flush(t);
}

// The op the hook noted, or what the recorder infers: libitm's pending block,
// an operator new recording the block its inner malloc held.
// Its alignment goes with it (call_extra), or 0 when the hook noted nothing.
uint8_t take_op(ThreadState& t, uint8_t fallback, uint32_t* extra) {
  uint8_t op = t.call_op ? t.call_op : fallback;
  *extra = t.call_op ? t.call_extra : 0;
  t.call_op = 0;
  return op;
}

}  // namespace

void start(uint64_t zero_ns) {
  if (!options.trace[0]) return;
  fd = files::open_appending(options.trace, true);
  if (fd < 0) {
    text::Line line;
    line.add("memprof: warning: MEMPROF_TRACE='").add(options.trace)
        .add("' cannot be written (a path in a writable folder); no trace is recorded\n");
    line.write_to(2);
    return;
  }
  TraceHeader h{};
  for (int i = 0; i < 8; ++i) h.magic[i] = kMagic[i];
  h.version = kVersion;
  h.header_bytes = sizeof(TraceHeader);
  h.event_bytes = sizeof(TraceEvent);
  h.pid = uint32_t(process::pid());
  start_ns = zero_ns;
  h.start_ns = start_ns;
  h.clock_id = CLOCK_MONOTONIC;
  files::read_whole("/proc/self/cmdline", h.program, sizeof(h.program));  // the first word ends at its NUL
  if (!text::write_all(fd, reinterpret_cast<const char*>(&h), sizeof(h))) {
    files::close(fd);
    fd = -1;
    return;
  }
  // Forked children's programs would truncate the file: only an exec of this
  // process itself hands the variable on (exec_hooks.cpp).
  const char prefix[] = "MEMPROF_TRACE=";
  size_t n = 0;
  for (const char* c = prefix; *c; ++c) variable[n++] = *c;
  for (const char* c = options.trace; *c; ++c) variable[n++] = *c;  // options.trace holds < 512 bytes
  variable[n] = 0;
  unsetenv("MEMPROF_TRACE");
  asymmetric = process::register_thread_fences();
  tracing_pid = process::pid();
  shared.tracing = true;
}

void finish() {
  if (!shared.tracing || fd < 0) return;
  // Attached before the registry is locked: attaching a thread that never
  // allocated takes that lock itself (a program that allocates nothing hung here).
  const ThreadState& me = current_thread();
  registry::lock();
  close_door(me);  // for good: threads still running leave their events unwritten
  for (ThreadState* t = registry::first(); t; t = t->next) flush(*t);
  registry::unlock();
  shared.tracing = false;
  TraceTrailer tail{kTrailerMagic, next_thread.load(), events_written.load(), now_ns() - start_ns};
  text::write_all(fd, reinterpret_cast<const char*>(&tail), sizeof(tail));
  files::close(fd);
  fd = -1;
}

long end_before_exec() {
  if (!shared.tracing || fd < 0 || !variable[0] || process::pid() != tracing_pid) return -1;
  const ThreadState& me = current_thread();  // attached before the lock, as in finish()
  registry::lock();
  close_door(me);  // until the exec fails (exec_failed) or the process is another program
  for (ThreadState* t = registry::first(); t; t = t->next) flush(*t);
  registry::unlock();
  const off_t length = files::end_of(fd);
  if (length < 0) {
    open_door();
    return -1;
  }
  TraceTrailer tail{kTrailerMagic, next_thread.load(), events_written.load(), now_ns() - start_ns};
  text::write_all(fd, reinterpret_cast<const char*>(&tail), sizeof(tail));
  return long(length);
}

const char* exec_variable() { return variable; }

void exec_failed(long length) {
  if (length < 0 || fd < 0) return;
  if (!files::cut_to(fd, off_t(length))) {  // events after a trailer would be read as damage: stop instead
    shared.tracing = false;
    text::Line line;
    line.add("memprof: warning: MEMPROF_TRACE: a failed exec left the trace ended there\n");
    line.write_to(2);
  }
  open_door();
}

void stop_in_child() {
  shared.tracing = false;
  fd = -1;  // the parent's descriptor: the parent writes it, not us
}

void on_alloc(ThreadState& t, void* p, size_t n, int region) {
  if (!shared.tracing) return;
  Door door(t);
  if (!door.passed()) return;
  uint32_t extra = 0;
  uint8_t op = take_op(t, kMalloc, &extra);
  if (op == kRealloc) op = kMalloc;  // realloc(NULL, n), or the fresh block of realloc(p, 0)
  if (region == 2 && op == kMalloc) op = kTmMalloc;
  append(t, event(op, uint64_t(p), 0, n, region, extra));
}

void on_free(ThreadState& t, void* p, size_t n, int region, bool known) {
  if (!shared.tracing) return;
  Door door(t);
  if (!door.passed()) return;
  uint32_t extra = 0;
  uint8_t op = take_op(t, kFree, &extra);
  if (op == kRealloc) op = kFree;  // realloc(p, 0)
  append(t, event(op, uint64_t(p), 0, n, region, 0, known ? 0 : kUnknownBlock));
}

void on_realloc(ThreadState& t, void* p, void* q, size_t n, int region) {
  if (!shared.tracing) return;
  Door door(t);
  if (!door.passed()) return;
  t.call_op = 0;
  uint64_t now = now_ns();
  uint64_t took = now > t.call_start_ns ? now - t.call_start_ns : 0;
  TraceEvent e = event(kRealloc, uint64_t(q), uint64_t(p), n, region, took > 0xffffffffu ? 0xffffffffu : uint32_t(took));
  append(t, e);
}

void on_phase(ThreadState& t, uint8_t op, uint64_t at_ns) {
  if (!shared.tracing) return;
  Door door(t);
  if (!door.passed()) return;
  TraceEvent e = event(op, 0, 0, 0, 0);
  e.time_ns = at_ns > start_ns ? at_ns - start_ns : 0;
  append(t, e);
}

// Called once the thread's status is kExited: what follows is written at once.
void on_thread_end(ThreadState& t) {
  if (!shared.tracing || !t.trace_opened) return;
  Door door(t);
  if (!door.passed()) return;
  if (t.trace_buffer) {
    flush(t);
    raw::munmap(t.trace_buffer, sizeof(Buffer));
    t.trace_buffer = nullptr;
  }
  write_one(t, event(kThreadEnd, 0, 0, 0, 0));
}

}  // namespace memprof::trace
