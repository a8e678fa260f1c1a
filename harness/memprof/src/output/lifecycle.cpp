// lifecycle.cpp — initialisation (from the first hook, which may come before
// the constructor, or from the constructor), the output channel, the measured
// phase, and the report at exit.
#include "output/lifecycle.h"

#include "base/options.h"
#include "base/text.h"
#include "os/allocator_code.h"
#include "os/clock.h"
#include "os/files.h"
#include "os/kernel_calls.h"
#include "os/process.h"
#include "os/real.h"
#include "recording/heap.h"
#include "recording/recorder.h"
#include "recording/registry.h"
#include "recording/sampling.h"
#include "recording/series.h"
#include "recording/threads.h"
#include "recording/totals.h"
#include "recording/trace.h"

namespace memprof {

namespace {

constinit std::atomic<int> init_state{0};  // 0 not yet, 1 in progress, 2 done
uint64_t started_ns = 0;
constinit Phase measured{};
int out_fd = -1;

void open_output() {
  const char* out = options.out;
  if (!*out) return;
  if (text::starts_with(out, "fd:")) {
    const char* end;
    uint64_t fd = text::parse_u64(out + 3, &end);
    if (*end == 0 && end != out + 3 && files::is_open(int(fd))) {
      if (fd <= 2) {
        // The program's own stdin/stdout/stderr: keep a private copy, leave it alone.
        out_fd = files::copy_above(int(fd), 3);
        if (out_fd >= 0) return;
      } else {
        // Inherited by the programs this one runs, which report there too
        // (their records carry pid and ppid: a reader keeps the root's).
        out_fd = int(fd);
        return;
      }
    }
  } else {
    out_fd = files::open_appending(out, false);
    if (out_fd >= 0) return;
  }
  text::Line line;
  line.add("memprof: warning: MEMPROF_OUT='").add(out)
      .add("' cannot be written (fd:N needs an open descriptor; a path needs a writable folder);"
           " printing a summary on stderr instead\n");
  line.write_to(2);
  out_fd = -1;
}

// Allocators set themselves up on first use, and some allocate for themselves
// through the public functions while doing so (jemalloc 16 bytes, tcmalloc 56).
// Doing it here, under the nesting guard, keeps that out of the program's figures.
void warm_up_allocator() {
  void* p = real.malloc(64);
  if (p) real.malloc_usable_size(p);
  real.free(p);
  void* q = real.calloc(1, 64);
  real.free(q);
}

}  // namespace

// The process memprof started in (a vfork child shares this memory: it is
// told apart by its pid; a forked child by its fork handler).
pid_t start_pid = 0;

bool started_here() {
  return start_pid != 0 && process::pid() == start_pid && !threads::forked_child();
}

void ensure_ready() {
  if (shared.ready.load(std::memory_order_acquire)) return;
  ThreadState& t = self;
  ++t.depth;
  resolve_real();
  allocator_code::find();  // if no kernel call did yet: before the program can change LD_PRELOAD
  if (real.in_transaction) note_libitm();
  int expected = 0;
  if (init_state.compare_exchange_strong(expected, 1)) {
    load_options();
    shared.mode = !options.track_heap     ? kCountsOnly
                  : !options.track_usable ? kHeapNoUsable
                  : real.glibc_layout     ? kHeapGlibc
                                          : kHeapMemo;
    set_peak_slack(options.peak_slack_bytes);
    started_ns = now_ns();
    start_pid = process::pid();
    measured.begin_ns = started_ns;
    threads::install();
    warm_up_allocator();
    init_state.store(2);
    shared.ready.store(true, std::memory_order_release);
  } else {
    while (init_state.load() != 2) {
    }
  }
  --t.depth;
}

void begin_measured_phase() {
  registry::lock();
  uint64_t now = now_ns();  // under the lock: no thread folds a later time in between
  measured.load_begin = load_until(now);
  registry::unlock();
  measured.begin_ns = now;
  measured.ended = false;
  measured.ended_by_program = false;
}

void end_measured_phase(bool by_program) {
  registry::lock();
  uint64_t now = now_ns();
  measured.load_end = load_until(now);
  registry::unlock();
  measured.end_ns = now;
  Totals held = collect(now);
  measured.heap_req = held.req_end;
  measured.heap_use = held.use_end;
  measured.blocks = held.blocks_end;
  measured.memory = procfs::read_memory();
  ThreadState& t = self;
  ++t.depth;  // allocators may allocate to answer: not the program's
  measured.allocator = introspect::read(real.glibc_layout);
  --t.depth;
  if (kernel_calls::counted()) measured.allocator_pages = os_pages::measure();
  measured.ended = true;
  measured.ended_by_program = by_program;
}

const Phase& measured_phase() { return measured; }
uint64_t start_ns() { return started_ns; }
int output_fd() { return out_fd; }

__attribute__((constructor(101))) static void on_load() {
  ensure_ready();
  threads::note_main_stack(reinterpret_cast<uintptr_t>(__builtin_frame_address(0)));
  open_output();
  // MEMPROF_OUT stays: the programs this one execs record to the same place
  // (the inherited descriptor, or the path, appended to), never to their own stderr.
  if (options.verbose) print_options();
  if (options.series) series::start(started_ns);
  trace::start(started_ns);  // one clock zero: the trace's times are memprof's
  sampling::start();
  self.sample_left = sampling::first_countdown();  // the main thread may have attached already
  shared.counting.store(true, std::memory_order_release);
  // libitm may be found on another thread meanwhile (note_libitm clears `hot`
  // after setting tm_loaded): set, then look again.
  shared.hot.store(!shared.tracing, std::memory_order_seq_cst);
  if (shared.tm_loaded.load(std::memory_order_seq_cst)) shared.hot.store(false, std::memory_order_seq_cst);
}

// The one report: every figure published and the phase ended first, so the
// report only reads. At exit (the destructor), or from _exit and _Exit
// (exit_hooks.cpp), which skip the destructors.
void report_at_exit() {
  static std::atomic<bool> done{false};
  if (!shared.ready.load() || done.exchange(true)) return;
  ThreadState& t = self;
  ++t.depth;
  if (t.status == kLive) {
    if (t.new_held) settle_held(t);  // an exception object from an operator new that threw, still live
    publish(t);
  }
  series::stop();
  if (!measured.ended) {
    end_measured_phase();
    // The phase memprof measured ends here: the trace gets the mark at the
    // same time, so its load and duration are over the same interval.
    trace::on_phase(t, trace::kPhaseEnd, measured.end_ns);
  }
  trace::finish();
  sampling::finish();
  os_pages::Figures pages_at_exit{};
  if (kernel_calls::counted()) pages_at_exit = os_pages::measure();
  --t.depth;
  report::write_final(measured, pages_at_exit, out_fd);
}

__attribute__((destructor(101))) static void on_unload() { report_at_exit(); }

}  // namespace memprof
