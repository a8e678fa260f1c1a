// series.cpp — the point buffer, the resolution rule, decimation when full, and
// the sampler thread (started with the real pthread_create, invisible to the
// thread count; it allocates nothing and reads /proc/self/statm).
#include "recording/series.h"

#include <pthread.h>
#include <sys/mman.h>
#include <time.h>

#include <atomic>

#include "base/options.h"
#include "os/clock.h"
#include "os/procfs.h"
#include "os/raw_syscalls.h"
#include "recording/thread_state.h"

namespace memprof::series {

namespace {

constinit std::atomic<bool> busy{false};
constinit Point* buffer = nullptr;
uint64_t capacity = 0;
uint64_t count = 0;
uint64_t start_ns = 0;
uint64_t time_res_ns = 0;
uint64_t last_point_ns = 0;
int64_t last_point_req = 0;
constinit std::atomic<int64_t> max_since{INT64_MIN};
constinit std::atomic<uint64_t> last_rss_kb{0};
constinit std::atomic<bool> running{false};

void note_max(int64_t v) {
  int64_t cur = max_since.load(std::memory_order_relaxed);
  while (v > cur && !max_since.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
  }
}

// Halves the points: each pair becomes one carrying the pair's maximum.
void decimate() {
  uint64_t out = 0;
  for (uint64_t i = 0; i + 1 < count; i += 2) {
    Point merged = buffer[i + 1];
    if (buffer[i].heap_req_max > merged.heap_req_max) merged.heap_req_max = buffer[i].heap_req_max;
    buffer[out++] = merged;
  }
  if (count % 2) buffer[out++] = buffer[count - 1];
  count = out;
  time_res_ns *= 2;
}

// Appends a point if a resolution is exceeded; caller holds `busy`.
void offer(uint64_t now, bool force) {
  if (now < last_point_ns) now = last_point_ns;  // `now` was read before the lock
  int64_t cur = shared.heap_req.load(std::memory_order_relaxed);
  int64_t diff = cur - last_point_req;
  if (diff < 0) diff = -diff;
  if (!force && now - last_point_ns < time_res_ns && uint64_t(diff) < options.series_size_bytes) return;
  if (count == capacity) decimate();
  int64_t mx = max_since.exchange(cur, std::memory_order_relaxed);
  // The published heap lags each thread's unpublished bytes (at most the slack
  // each): a thread that frees another's blocks can take it below 0 for a
  // moment. The heap never is, so a point is never below 0 either (closer to
  // the truth, within the same bound).
  auto at_least_0 = [](int64_t v) { return v < 0 ? int64_t(0) : v; };
  buffer[count++] = Point{now - start_ns, at_least_0(cur), at_least_0(mx > cur ? mx : cur),
                          at_least_0(shared.heap_use.load(std::memory_order_relaxed)),
                          last_rss_kb.load(std::memory_order_relaxed)};
  last_point_ns = now;
  last_point_req = cur;
}

void* sampler(void*) {
  timespec period{time_t(options.series_time_ms / 1000), long(options.series_time_ms % 1000) * 1000000L};
  while (running.load(std::memory_order_acquire)) {
    nanosleep(&period, nullptr);
    last_rss_kb.store(procfs::read_rss_kb(), std::memory_order_relaxed);
    if (!running.load(std::memory_order_acquire)) break;
    lock();
    offer(now_ns(), false);
    unlock();
  }
  return nullptr;
}

}  // namespace

void lock() {
  while (busy.exchange(true, std::memory_order_acquire)) {
    while (busy.load(std::memory_order_relaxed)) __builtin_ia32_pause();
  }
}

void unlock() { busy.store(false, std::memory_order_release); }

void start(uint64_t t0_ns) {
  capacity = options.series_max_points;
  void* m = raw::mmap(nullptr, capacity * sizeof(Point), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return;
  buffer = static_cast<Point*>(m);
  start_ns = t0_ns;
  last_point_ns = t0_ns;
  time_res_ns = options.series_time_ms * 1000000ull;
  last_rss_kb.store(procfs::read_rss_kb());
  lock();
  offer(t0_ns, true);
  unlock();
  using Create = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  static Create next = nullptr;  // not the hook: the sampler is memprof's own thread
  Create create = next_definition(next, "pthread_create");
  running.store(true);
  pthread_t th;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  if (!create || create(&th, &attr, sampler, nullptr) != 0) running.store(false);
  pthread_attr_destroy(&attr);
}

void on_publish(uint64_t now, int64_t heap_req, int64_t heap_req_max) {
  if (!buffer) return;
  note_max(heap_req_max);
  int64_t diff = heap_req - last_point_req;
  if (diff < 0) diff = -diff;
  if (uint64_t(diff) < options.series_size_bytes && (now < last_point_ns || now - last_point_ns < time_res_ns)) return;
  if (busy.exchange(true, std::memory_order_acquire)) return;  // someone is adding a point
  offer(now, false);
  unlock();
}

void after_fork_child() {
  running.store(false);  // the sampler did not survive fork
  buffer = nullptr;
  count = 0;
  unlock();  // taken by the fork handler in the parent
}

void stop() {
  running.store(false, std::memory_order_release);
  if (!buffer) return;
  lock();
  last_rss_kb.store(procfs::read_rss_kb());
  offer(now_ns(), true);
  unlock();
}

const Point* points(uint64_t* n) {
  *n = buffer ? count : 0;
  return buffer;
}

uint64_t mapped_bytes(const void** base) {
  *base = buffer;
  return buffer ? capacity * sizeof(Point) : 0;
}

}  // namespace memprof::series
