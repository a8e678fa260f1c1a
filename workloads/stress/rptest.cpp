// rptest.cpp — Mattias Jansson's rpmalloc benchmark (mimalloc-bench's rptest),
// allocating as it does with bench.sh's arguments (random sizes, linear
// drop-off, cross rate 2). Each worker keeps --allocs slots; a loop frees a
// varying number of them (walking the slots by one prime stride), frees what
// other threads handed it, then fills a varying number of slots (by another
// stride) with blocks of 8–16000 bytes, most of them small, and every
// --cross-rate-th loop allocates as many more for the next thread to free.
// Blocks under 4 KiB come from memalign (alignment 8 or 16, then memset) two
// times in three and from calloc otherwise, larger ones from calloc; every page
// is touched. Two rounds of threads, two passes each. Timed as the original:
// each worker's clock runs around its allocation and free loops only; the
// score is memory operations per second of that time (memory_ops_per_s) and
// elapsed_ns is that time summed over the workers and divided by their number.
// The original's sizes and operation counts come from fixed tables of random
// numbers in its source; these are drawn here from the same distributions
// (from --seed), so the figures match in distribution, not digit for digit.
// Verified: every block still holds its size in its first bytes at its free,
// and a handed-over batch's sizes add up to what its sender put in.
#include <malloc.h>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <new>
#include <thread>

#include "command_line.h"
#include "key_names.h"
#include "os_threads.h"
#include "stress.h"

namespace allocstamp::stress {
namespace {

// Table lengths: primes, so the three cycles seldom line up.
constexpr size_t kSizes = 2000, kAllocCounts = 311, kFreeCounts = 257;

struct Params {
  int threads = 1;
  long cross_rate = 2, loops = 500, allocs = 1000, ops = 100;
  size_t min_size = 8, max_size = 16000;
};

// Blocks handed to another thread, which frees them, the array and this.
struct Handoff {
  Handoff* next;
  void** blocks;
  size_t count;
  int64_t bytes;  // the blocks' sizes added up, for the receiver to check
};

struct Shared {
  Params p;
  size_t sizes[kSizes], alloc_counts[kAllocCounts], free_counts[kFreeCounts];
  size_t alloc_stride, free_stride;
  std::atomic<int> ready{0};  // workers waiting for the start
  std::atomic<bool> go{false};
  std::atomic<int> finished[2];  // workers done with a pass's loops
  struct Worker* workers;
};

struct Worker {
  Shared* shared;
  int index;
  std::atomic<Handoff*> inbox;
  int64_t ticks;  // ns inside the timed loops
  uint64_t ops;   // allocations and frees, batches counting two
  long broken;
};

// The original's drawing of sizes: uniform in [min, max], then each entry
// mixed with its next two so that small sizes are the more frequent (its
// "linear drop-off").
void draw_tables(Shared& s, uint64_t seed) {
  Rng rng(seed * 0x2545F4914F6CDD1Dull + 17);
  const size_t min = s.p.min_size, range = s.p.max_size - s.p.min_size;
  size_t even[kSizes];
  for (size_t& e : even) e = min + size_t(std::lround(double(range) * double(rng.below(100000)) / 100000.0));
  const double span = range ? double(range) : 1.0;
  for (size_t i = 0; i < kSizes; ++i) {
    double w0 = 1.0 - double(even[i] - min) / span;
    double w1 = 1.0 - double(even[(i + 1) % kSizes] - min) / span;
    s.sizes[i] = min + size_t(double(even[(i + 2) % kSizes] - min) * std::fabs(w0 + w1 - 1.0));
  }
  // Per-loop counts: 30–99% of --ops allocations, 80% of that for frees (the
  // original's rounding: ops · 0.58 is 57 in floating point, not 58).
  for (size_t& c : s.alloc_counts) c = size_t(double(s.p.ops) * (double(rng.between(30, 99)) / 100.0));
  for (size_t& c : s.free_counts) c = size_t(0.8 * double(s.p.ops) * (double(rng.between(30, 99)) / 100.0));
}

bool is_prime(size_t n) {
  for (size_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return n > 1;
}

// The first prime from 7 up that does not divide the slot count, and the next.
void pick_strides(Shared& s) {
  const size_t slots = size_t(s.p.allocs);
  size_t n = 7;
  while (!is_prime(n) || slots % n == 0) ++n;
  s.alloc_stride = n++;
  while (!is_prime(n) || slots % n == 0) ++n;
  s.free_stride = n;
}

// calloc, or memalign and memset: the original's allocation, which fills every byte.
void* block_of(size_t alignment, size_t size) {
  void* p = alignment ? memalign(alignment, size) : std::calloc(1, size);
  if (!p) {
    std::fprintf(stderr, "stress: allocation of %zu bytes failed\n", size);
    std::exit(1);
  }
  if (alignment) std::memset(p, 0xCD, size);
  return p;
}

// A program block: its size in its first four bytes, one byte of every page after the first written.
void* sized_block(size_t index, size_t size) {
  static constexpr size_t kAlignments[3] = {0, 8, 16};
  auto* p = static_cast<char*>(block_of(size < 4096 ? kAlignments[index % 3] : 0, size));
  int32_t stamp = int32_t(size);
  std::memcpy(p, &stamp, sizeof stamp);
  for (size_t page = 1; page < (size - 1) / 4096; ++page) p[page * 4096] = 1;
  p[size - 1] = 1;
  return p;
}

int32_t size_in(const void* block) {
  int32_t size;
  std::memcpy(&size, block, sizeof size);
  return size;
}

void push(std::atomic<Handoff*>& inbox, Handoff* h) {
  h->next = inbox.load(std::memory_order_relaxed);
  while (!inbox.compare_exchange_weak(h->next, h, std::memory_order_release, std::memory_order_relaxed)) {
  }
}

Handoff* take(Worker& w) { return w.inbox.exchange(nullptr, std::memory_order_acquire); }

// Frees the batches taken from an inbox; returns the operations.
uint64_t free_batches(Worker& w, Handoff* h) {
  uint64_t ops = 0;
  while (h) {
    int64_t bytes = 0;
    for (size_t i = 0; i < h->count; ++i) {
      bytes += size_in(h->blocks[i]);
      std::free(h->blocks[i]);
    }
    if (bytes != h->bytes) ++w.broken;
    ops += h->count + 2;
    Handoff* next = h->next;
    std::free(h->blocks);
    std::free(h);
    h = next;
  }
  return ops;
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void* worker_main(void* argument) {
  Worker& w = *static_cast<Worker*>(argument);
  Shared& s = *w.shared;
  const Params& p = s.p;
  const size_t slots = size_t(p.allocs);
  auto** blocks = static_cast<void**>(block_of(16, slots * sizeof(void*)));
  std::memset(blocks, 0, slots * sizeof(void*));
  auto ok = [&](const void* b) { return size_t(size_in(b)) >= p.min_size && size_t(size_in(b)) <= p.max_size; };
  auto release = [&](void*& b) {
    if (!ok(b)) ++w.broken;
    std::free(b);
    b = nullptr;
    ++w.ops;
  };
  size_t alloc_slot = 0, free_slot = 0, target = size_t(w.index);
  // The original's workers look for the start every 10 ms, so each begins up
  // to 10 ms after the others; what they hand over meanwhile piles up for a
  // thread yet to begin (part of its working set at two threads).
  s.ready.fetch_add(1);
  while (!s.go.load()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  for (int pass = 0; pass < 2; ++pass) {
    size_t size_index = (size_t(w.index + 1) * size_t((pass + 1) * 37)) % kSizes;
    bool hand_over = true;
    for (long loop = 0; loop < p.loops; ++loop) {
      Handoff* incoming = take(w);
      int64_t start = now_ns();
      const size_t frees = s.free_counts[size_t(pass + loop) % kFreeCounts];
      const size_t allocations = s.alloc_counts[size_t(pass + loop) % kAllocCounts];
      for (size_t i = 0; i < frees; ++i) {
        if (blocks[free_slot]) release(blocks[free_slot]);
        free_slot = (free_slot + s.free_stride) % slots;
      }
      w.ops += free_batches(w, incoming);
      for (size_t i = 0; i < allocations; ++i) {
        if (blocks[alloc_slot]) release(blocks[alloc_slot]);
        blocks[alloc_slot] = sized_block(size_index + i, s.sizes[(size_index + 2) % kSizes]);
        ++w.ops;
        alloc_slot = (alloc_slot + s.alloc_stride) % slots;
        size_index = (size_index + 1) % kSizes;
      }
      Handoff* out = nullptr;
      if (p.cross_rate && loop % p.cross_rate == 0 && hand_over) {
        out = static_cast<Handoff*>(block_of(16, sizeof(Handoff)));
        out->count = allocations;
        out->blocks = static_cast<void**>(block_of(16, allocations * sizeof(void*)));
        out->bytes = 0;
        w.ops += 2;
        for (size_t i = 0; i < allocations; ++i) {
          size_t size = s.sizes[(size_index + 2) % kSizes];
          out->blocks[i] = sized_block(size_index + i, size);
          out->bytes += int64_t(size);
          ++w.ops;
          size_index = (size_index + 1) % kSizes;
        }
      }
      w.ticks += now_ns() - start;
      if (out) {
        // To the next thread but this one, round robin.
        target = (target + 1) % size_t(p.threads);
        if (p.threads > 1 && target == size_t(w.index)) target = (target + 1) % size_t(p.threads);
        push(s.workers[target].inbox, out);
      }
      // The original stops handing over once any thread has finished its loops.
      if (s.finished[pass].load() > 0) hand_over = false;
    }
    // Batches keep arriving until every thread is done; then the slots are emptied.
    s.finished[pass].fetch_add(1);
    for (;;) {
      bool all = s.finished[pass].load() == p.threads;
      Handoff* incoming = take(w);
      int64_t start = now_ns();
      w.ops += free_batches(w, incoming);
      w.ticks += now_ns() - start;
      if (all) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));  // the original's pace
    }
    int64_t start = now_ns();
    for (size_t i = 0; i < slots; ++i)
      if (blocks[i]) release(blocks[i]);
    w.ticks += now_ns() - start;
  }
  std::free(blocks);
  return nullptr;
}

int run_rptest(const std::string& app, int argc, char** argv) {
  static Shared s;
  Params& p = s.p;
  long loops = -1;
  workload::Common common = workload::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--loops") loops = workload::whole_number(option, value, 1, 1L << 24);
    else if (option == "--allocs") p.allocs = workload::whole_number(option, value, 1, 1L << 24);
    else if (option == "--ops") p.ops = workload::whole_number(option, value, 1, 1L << 24);
    else if (option == "--cross-rate") p.cross_rate = workload::whole_number(option, value, 0, 1L << 24);
    else if (option == "--min-size") p.min_size = size_t(workload::whole_number(option, value, 4, 1L << 30));
    else if (option == "--max-size") p.max_size = size_t(workload::whole_number(option, value, 4, 1L << 30));
    else return false;
    return true;
  });
  if (p.min_size > p.max_size) workload::usage_error("--min-size cannot exceed --max-size");
  // bench.sh: `rptest N 0 1 2 500 1000 100 8 16000` (medium); its timed part
  // takes 0.06 s at one thread here, so small runs five times the loops.
  p.loops = loops > 0 ? loops : by_size(common.size, 20, 2500, 500, 10000);
  p.threads = common.threads;
  if (p.threads == 1) p.cross_rate = 0;  // nobody to hand to
  draw_tables(s, common.seed);
  pick_strides(s);
  s.workers = static_cast<Worker*>(block_of(0, sizeof(Worker) * size_t(p.threads)));
  auto* ids = static_cast<pthread_t*>(block_of(0, sizeof(pthread_t) * size_t(p.threads)));
  int64_t ticks = 0;
  uint64_t ops = 0;
  long broken = 0;
  memprof::phase_begin();
  for (int round = 0; round < 2; ++round) {
    memprof::region parallel(MEMPROF_PAR);
    s.ready = 0;
    s.go = false;
    s.finished[0] = 0;
    s.finished[1] = 0;
    for (int t = 0; t < p.threads; ++t) {
      new (&s.workers[t]) Worker{&s, t, nullptr, 0, 0, 0};
      ids[t] = start_thread(worker_main, &s.workers[t]);
    }
    while (s.ready.load() < p.threads) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    s.go = true;
    for (int t = 0; t < p.threads; ++t) {
      join_thread(ids[t]);
      ticks += s.workers[t].ticks;
      ops += s.workers[t].ops;
      broken += s.workers[t].broken;
    }
  }
  memprof::phase_end();
  const int64_t ns = ticks / p.threads;
  memprof::metric(keys::elapsed_ns, ns);
  report_rate("memory_ops_per_s", ops, ticks);
  std::free(ids);
  std::free(s.workers);
  if (broken) verification_failed(app, std::to_string(broken) + " block(s) or batch(es) had lost their sizes at their free");
  std::printf("stress %s: threads=%d loops=%ld ops=%llu elapsed_ms=%.2f\n", app.c_str(), p.threads, p.loops,
              static_cast<unsigned long long>(ops), double(ns) / 1e6);
  return 0;
}

}  // namespace

const App kRptest = {"rptest",
                     "rptest options: [--loops L] [--allocs A] [--ops O] [--cross-rate R] [--min-size S] [--max-size S] "
                     "(bench.sh: --loops 500 --allocs 1000 --ops 100 --cross-rate 2 --min-size 8 --max-size 16000)",
                     run_rptest};
const Registration kRptestRegistered(kRptest);

}  // namespace allocstamp::stress
