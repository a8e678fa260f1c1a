// threads.cpp — thread lifecycle: pthread_create is wrapped so that memprof
// knows when threads start (for the par region and their stack range), a
// pthread key destructor merges a thread's figures when it ends, and the joins
// mark glibc's teardown frees as its own. The registry lock is taken only at
// thread start/exit, at fork and by the report.
#include "recording/threads.h"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include "interposition/exports.h"
#include "os/procfs.h"
#include "os/raw_syscalls.h"
#include "recording/sampling.h"
#include "recording/scopes.h"
#include "recording/series.h"
#include "recording/totals.h"
#include "recording/trace.h"

namespace memprof::threads {

namespace {

constinit std::atomic<bool> registry_busy{false};
constinit ThreadState* registry = nullptr;
pthread_key_t exit_key;
constinit std::atomic<bool> key_ready{false};

constinit std::atomic<int> alive_count{1};  // the main thread
constinit std::atomic<int> alive_peak{1};
constinit std::atomic<uint64_t> thread_stack_max{0};
constinit std::atomic<uint64_t> stacks_measured{0};
uintptr_t main_sp = 0;
bool is_forked_child = false;
int pid_before_fork = 0;

// Until the program names its region, par while more than one thread lives.
// Retried until the count it acted on is still current (threads start and end
// concurrently); an explicit region set meanwhile wins.
void update_region() {
  for (;;) {
    if (shared.region_explicit.load(std::memory_order_acquire)) {
      shared.region.store(shared.explicit_region.load(std::memory_order_relaxed), std::memory_order_relaxed);
      return;
    }
    int n = alive_count.load(std::memory_order_acquire);
    shared.region.store(n > 1 ? kPar : kSeq, std::memory_order_relaxed);
    if (alive_count.load(std::memory_order_acquire) == n && !shared.region_explicit.load(std::memory_order_acquire))
      return;
  }
}

void thread_started() {
  int n = alive_count.fetch_add(1, std::memory_order_relaxed) + 1;
  int peak = alive_peak.load(std::memory_order_relaxed);
  while (n > peak && !alive_peak.compare_exchange_weak(peak, n)) {
  }
  update_region();
}

void thread_ended() {
  alive_count.fetch_sub(1, std::memory_order_relaxed);
  update_region();
}

void link(ThreadState& t) {
  t.prev = nullptr;
  t.next = registry;
  if (registry) registry->prev = &t;
  registry = &t;
}

void unlink(ThreadState& t) {
  if (t.prev) t.prev->next = t.next; else if (registry == &t) registry = t.next;
  if (t.next) t.next->prev = t.prev;
  t.next = t.prev = nullptr;
}

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
  lock();
  merge_counters(t);
  fold_into_orphans(t, now_ns());
  unlink(t);
  t.status = kExited;
  t.teardown = 1;  // what glibc frees from here on (other threads' cached stacks) is its own
  tx_set_release(t.tx_set);
  tx_set_release(t.tm_internal);
  t.tx_marked = 0;
  t.in_tm_runtime = 0;
  refresh_slow(t);
  unlock();
  trace::on_thread_end(t);
  if (t.counted) thread_ended();
}

struct Launch {
  void* (*fn)(void*);
  void* arg;
  bool user_stack;
};

void* trampoline(void* raw) {
  self.launched = true;  // before the attach: the program's thread
  ThreadState& t = current_thread();
  t.counted = true;
  ++t.depth;  // what pthread_getattr_np allocates is not the program's
  Launch launch = *static_cast<Launch*>(raw);
  real.free(raw);
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
  if (t.stack_high && !launch.user_stack) {
    // glibc reuses the stacks of ended threads: drop the pages below us so
    // that the high-water mark is this thread's own.
    uintptr_t here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0)) & ~uintptr_t(4095);
    uintptr_t keep_from = here - 2 * 4096;
    if (keep_from > t.stack_low) raw::madvise(reinterpret_cast<void*>(t.stack_low), keep_from - t.stack_low, MADV_DONTNEED);
  }
  return launch.fn(launch.arg);
}

void before_fork() {
  current_thread();  // attach now: attaching takes the registry lock held below
  scope_names_lock();
  series::lock();
  lock();
}

void after_fork_parent() {
  unlock();
  series::unlock();
  scope_names_unlock();
}

void after_fork_child() {
  ThreadState& survivor = self;
  for (ThreadState* t = registry; t; t = t->next) {
    if (t == &survivor) continue;
    shared.heap_req.fetch_add(t->local.req);
    shared.heap_use.fetch_add(t->local.use);
    shared.heap_blocks.fetch_add(t->local.blocks);
  }
  registry = nullptr;
  if (survivor.status == kLive) link(survivor);
  alive_count.store(1);
  alive_peak.store(1);
  thread_stack_max.store(0);
  stacks_measured.store(0);
  update_region();
  reset_for_child(survivor);
  is_forked_child = true;
  pid_before_fork = getppid();
  series::after_fork_child();
  trace::stop_in_child();
  unlock();
  scope_names_unlock();
}

}  // namespace

void lock() {
  while (registry_busy.exchange(true, std::memory_order_acquire)) {
    while (registry_busy.load(std::memory_order_relaxed)) __builtin_ia32_pause();
  }
}

void unlock() { registry_busy.store(false, std::memory_order_release); }

ThreadState* first() { return registry; }

void install() {
  if (pthread_key_create(&exit_key, on_thread_exit) == 0) key_ready.store(true);
  pthread_atfork(before_fork, after_fork_parent, after_fork_child);
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

int peak_alive() { return alive_peak.load(); }
bool forked_child() { return is_forked_child; }
int parent_pid() { return pid_before_fork; }

}  // namespace memprof::threads

namespace memprof {

void thread_attach(ThreadState& t) {
  // A thread memprof did not start, other than the main one, is not the
  // program's: an allocator's own (jemalloc's background threads start through
  // the real pthread_create), or one a library started before memprof was
  // ready. Its calls forward uncounted, as nested calls do; its kernel calls
  // are the allocator's.
  if (!t.launched && shared.ready.load(std::memory_order_acquire) && gettid() != getpid()) {
    t.status = kForeign;
    ++t.depth;
    return;
  }
  t.status = kLive;
  t.memo_countdown = 1;  // the thread's first memo-served block is checked
  t.sample_left = sampling::first_countdown();
  refresh_slow(t);
  t.last_publish_ns = now_ns();
  threads::lock();
  threads::link(t);
  threads::unlock();
  if (threads::key_ready.load(std::memory_order_acquire)) pthread_setspecific(threads::exit_key, &t);
}

}  // namespace memprof

extern "C" MEMPROF_EXPORT int pthread_create(
    pthread_t* thread, const pthread_attr_t* attr, void* (*fn)(void*), void* arg) {
  using namespace memprof;
  using Create = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  static Create cached = nullptr;
  Create next = memprof::next_definition(cached, "pthread_create");
  if (!shared.ready.load(std::memory_order_acquire)) return next(thread, attr, fn, arg);

  ThreadState& t = current_thread();
  // A thread an allocator starts from inside malloc (jemalloc's background
  // threads) is not the program's.
  if (t.depth != 0) return next(thread, attr, fn, arg);
  ++t.depth;  // what glibc allocates for the new thread (its TLS vector) is not the program's
  auto* launch = static_cast<threads::Launch*>(real.malloc(sizeof(threads::Launch)));
  if (!launch) {
    int rc = next(thread, attr, fn, arg);
    --t.depth;
    return rc;
  }
  launch->fn = fn;
  launch->arg = arg;
  launch->user_stack = false;
  if (attr) {
    // Without an address set, glibc reports "address 0 minus size" as the stack.
    void* addr = nullptr;
    size_t size = 0;
    launch->user_stack = pthread_attr_getstack(attr, &addr, &size) == 0 && addr != nullptr &&
                         reinterpret_cast<uintptr_t>(addr) + size != 0;
  }
  threads::thread_started();
  int rc = next(thread, attr, threads::trampoline, launch);
  if (rc != 0) {
    threads::thread_ended();
    real.free(launch);
  }
  --t.depth;
  return rc;
}

// Joining a thread may free the TLS vectors of ended threads whose stacks
// leave glibc's cache: glibc's own blocks, allocated inside pthread_create.
namespace memprof::threads {
template <typename Join, typename... Args>
int join_quietly(Join next, Args... args) {
  if (!shared.ready.load(std::memory_order_acquire)) return next(args...);
  ThreadState& t = current_thread();
  ++t.teardown;
  int rc = next(args...);
  --t.teardown;
  return rc;
}
}  // namespace memprof::threads

using memprof::threads::join_quietly;

extern "C" MEMPROF_EXPORT int pthread_join(pthread_t thread, void** result) {
  static int (*next)(pthread_t, void**) = nullptr;
  return join_quietly(memprof::next_definition(next, "pthread_join"), thread, result);
}

extern "C" MEMPROF_EXPORT int pthread_tryjoin_np(pthread_t thread, void** result) {
  static int (*next)(pthread_t, void**) = nullptr;
  return join_quietly(memprof::next_definition(next, "pthread_tryjoin_np"), thread, result);
}

extern "C" MEMPROF_EXPORT int pthread_timedjoin_np(pthread_t thread, void** result, const struct timespec* until) {
  static int (*next)(pthread_t, void**, const struct timespec*) = nullptr;
  return join_quietly(memprof::next_definition(next, "pthread_timedjoin_np"), thread, result, until);
}

extern "C" MEMPROF_EXPORT int pthread_clockjoin_np(pthread_t thread, void** result, clockid_t clock,
                                        const struct timespec* until) {
  static int (*next)(pthread_t, void**, clockid_t, const struct timespec*) = nullptr;
  return join_quietly(memprof::next_definition(next, "pthread_clockjoin_np"), thread, result, clock, until);
}
