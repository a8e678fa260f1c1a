// threads.cpp — thread lifecycle (threads.h): a started thread's stack range,
// the pthread key destructor that merges a thread's figures when it ends, the
// stack high-water marks, and the fork handlers. The registry lock is taken
// only at thread start/exit, at fork and by the report.
#include "recording/threads.h"

#include <pthread.h>
#include <sys/mman.h>

#include "os/clock.h"
#include "os/process.h"
#include "os/procfs.h"
#include "os/raw_syscalls.h"
#include "recording/recorder.h"
#include "recording/registry.h"
#include "recording/scopes.h"
#include "recording/series.h"
#include "recording/totals.h"
#include "recording/trace.h"

namespace memprof::threads {

namespace {

constinit std::atomic<uint64_t> thread_stack_max{0};
constinit std::atomic<uint64_t> stacks_measured{0};
uintptr_t main_sp = 0;
bool is_forked_child = false;
int pid_before_fork = 0;

// Runs when a thread ends (pthread key destructor; also after pthread_exit).
void on_thread_exit(void* arg) {
  ThreadState& t = *static_cast<ThreadState*>(arg);
  if (t.status != kLive) return;
  if (t.new_held) settle_held(t);  // an exception object from an operator new that threw, still live
  if (t.stack_high) {
    uint64_t depth = procfs::stack_depth(t.stack_low, t.stack_high);
    uint64_t cur = thread_stack_max.load(std::memory_order_relaxed);
    while (depth > cur && !thread_stack_max.compare_exchange_weak(cur, depth)) {
    }
    stacks_measured.fetch_add(1, std::memory_order_relaxed);
  }
  registry::lock();
  merge_counters(t);
  fold_into_orphans(t, now_ns());
  registry::remove(t);
  t.status = kExited;
  t.teardown = 1;  // what glibc frees from here on (other threads' cached stacks) is its own
  tx_set_release(t.tx_set);
  // libitm frees its per-thread blocks in its own thread destructor, which may
  // run after this one: the set stays until the last of them is freed
  // (free_region), so those frees are libitm's, not the program's.
  if (t.tm_internal.count == 0) tx_set_release(t.tm_internal);
  t.tx_marked = 0;
  t.in_tm_runtime = 0;
  refresh_slow(t);
  registry::unlock();
  trace::on_thread_end(t);
  // The main thread ends here only through pthread_exit: the threads left run on without it.
  if (t.counted || process::on_main_thread()) registry::thread_ended();
}

void before_fork() {
  current_thread();  // attach now: attaching takes the registry lock held below
  scope_names_lock();
  series::lock();
  registry::lock();
}

void after_fork_parent() {
  registry::unlock();
  series::unlock();
  scope_names_unlock();
}

void after_fork_child() {
  ThreadState& survivor = self;
  for (ThreadState* t = registry::first(); t; t = t->next) {
    if (t == &survivor) continue;
    shared.heap_req.fetch_add(t->local.req);
    shared.heap_use.fetch_add(t->local.use);
    shared.heap_blocks.fetch_add(t->local.blocks);
  }
  registry::keep_only(survivor);
  thread_stack_max.store(0);
  stacks_measured.store(0);
  reset_for_child(survivor);
  is_forked_child = true;
  pid_before_fork = process::parent_pid();
  series::after_fork_child();
  trace::stop_in_child();
  registry::unlock();
  scope_names_unlock();
}

}  // namespace

void install() {
  registry::install(on_thread_exit);
  pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

ThreadState& on_start(bool user_stack) {
  self.launched = true;  // before the attach: the program's thread
  ThreadState& t = current_thread();
  t.counted = true;
  ++t.depth;  // what pthread_getattr_np allocates is not the program's
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* addr = nullptr;
    size_t size = 0;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
      t.stack_low = reinterpret_cast<uintptr_t>(addr);
      t.stack_high = t.stack_low + size;
    }
    pthread_attr_destroy(&attr);
  }
  --t.depth;
  if (t.stack_high && !user_stack) {
    // glibc reuses the stacks of ended threads: drop the pages below us so
    // that the high-water mark is this thread's own.
    uintptr_t here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0)) & ~uintptr_t(4095);
    uintptr_t keep_from = here - 2 * 4096;
    if (keep_from > t.stack_low) raw::madvise(reinterpret_cast<void*>(t.stack_low), keep_from - t.stack_low, MADV_DONTNEED);
  }
  return t;
}

void note_main_stack(uintptr_t sp) { main_sp = sp; }

Stacks stacks() {
  Stacks s{};
  if (main_sp && !is_forked_child) {
    uintptr_t low, high;
    procfs::mapped_range(main_sp, &low, &high);
    s.main_bytes = procfs::stack_depth(low, high);
    s.count = 1;
  }
  s.thread_max_bytes = thread_stack_max.load();
  s.count += stacks_measured.load();
  return s;
}

bool forked_child() { return is_forked_child; }
int parent_pid() { return pid_before_fork; }

}  // namespace memprof::threads
