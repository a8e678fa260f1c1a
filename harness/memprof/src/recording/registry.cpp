// registry.cpp — the list of live thread states behind a spin lock, the count
// of the program's threads alive, and attaching (registry.h).
#include "recording/registry.h"

#include <pthread.h>

#include "os/clock.h"
#include "os/process.h"
#include "recording/sampling.h"

namespace memprof::registry {

namespace {

constinit std::atomic<bool> registry_busy{false};
constinit ThreadState* registry = nullptr;
pthread_key_t exit_key;
constinit std::atomic<bool> key_ready{false};

constinit std::atomic<int> alive_count{1};  // the main thread
constinit std::atomic<int> alive_peak{1};

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

void link(ThreadState& t) {
  t.prev = nullptr;
  t.next = registry;
  if (registry) registry->prev = &t;
  registry = &t;
}

}  // namespace

void install(void (*at_exit)(void*)) {
  if (pthread_key_create(&exit_key, at_exit) == 0) key_ready.store(true);
}

void lock() {
  while (registry_busy.exchange(true, std::memory_order_acquire)) {
    while (registry_busy.load(std::memory_order_relaxed)) __builtin_ia32_pause();
  }
}

void unlock() { registry_busy.store(false, std::memory_order_release); }

ThreadState* first() { return registry; }

void remove(ThreadState& t) {
  if (t.prev) t.prev->next = t.next; else if (registry == &t) registry = t.next;
  if (t.next) t.next->prev = t.prev;
  t.next = t.prev = nullptr;
}

void keep_only(ThreadState& survivor) {
  registry = nullptr;
  if (survivor.status == kLive) link(survivor);
  alive_count.store(1);
  alive_peak.store(1);
  update_region();
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

int peak_alive() { return alive_peak.load(); }

}  // namespace memprof::registry

namespace memprof {

void thread_attach(ThreadState& t) {
  // A thread memprof did not start, other than the main one, is not the
  // program's: an allocator's own (jemalloc's background threads start through
  // the real pthread_create), or one a library started before memprof was
  // ready. Its calls forward uncounted, as nested calls do; its kernel calls
  // are the allocator's.
  if (!t.launched && shared.ready.load(std::memory_order_acquire) && !process::on_main_thread()) {
    t.status = kForeign;
    ++t.depth;
    return;
  }
  t.status = kLive;
  t.memo_countdown = 1;  // the thread's first memo-served block is checked
  t.sample_left = sampling::first_countdown();
  refresh_slow(t);
  t.last_publish_ns = now_ns();
  registry::lock();
  registry::link(t);
  registry::unlock();
  if (registry::key_ready.load(std::memory_order_acquire)) pthread_setspecific(registry::exit_key, &t);
}

}  // namespace memprof
