// shbench.cpp — MicroQuill's SmartHeap benchmarks as mimalloc-bench runs them
// (`sh6bench 2N`, `sh8bench 2N`: twice --threads, so --threads N runs 2N
// threads). Both keep a ring of block pointers per thread: allocate into it,
// skipping a fifth kept from the previous lap; at the end of each lap free
// the part below the kept fifth in allocation order and the part above it in
// reverse, and move the kept fifth up. Each block gets its first and last
// byte written.
//
// sh6bench: sizes sweep down from 1, 2, 4, 7, 11, ... (×3/2 + 1) below 1000
// by halving, small ones more often; the call count is split over the threads,
// as ring length and laps. As in the original, a kept fifth that starts at the
// ring's bottom is overwritten before the skip is checked, so those blocks are
// never freed.
// sh8bench: a fixed size histogram (8 B ×1000 ... 168,524 B ×1), one size per
// iteration in turn; meanwhile the main thread allocates --foreign 8-byte
// blocks into a shared table, each thread frees its share of every thread's
// part of it as they appear, and what is left in the rings stays at exit.
//
// The parameters are printed first, as the originals prompt for theirs: the
// one stdio buffer each has lives as long. Timed: the whole run, as the
// originals are (mimalloc-bench takes their wall time). Verified: the
// stamps of the blocks left at the end.
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <new>

#include "command_line.h"
#include "stress.h"

namespace allocstamp::stress {
namespace {

// A block's stamp comes from its own address, so checking it needs no
// record of sizes beside the ring (which the original does not have).
inline char stamp_of(uintptr_t address) { return char((address >> 4) * 0x9D + 0x5B); }

// The original writes a block's first and last byte.
char* stamped(size_t size) {
  char* block = static_cast<char*>(std::malloc(size));
  if (!block) {
    std::fprintf(stderr, "stress shbench: malloc(%zu) failed\n", size);
    std::exit(1);
  }
  block[0] = block[size - 1] = stamp_of(uintptr_t(block));
  return block;
}

bool stamp_held(const char* block) { return block[0] == stamp_of(uintptr_t(block)); }

// One thread's ring of blocks and the laps around it.
class Ring {
 public:
  // Malloc'd, as the original's: it is part of the figures.
  explicit Ring(long length)
      : length_(length), blocks_(static_cast<char**>(std::malloc(sizeof(char*) * size_t(length)))) {}
  // sh6bench's step: allocate, then skip the kept fifth, then close the lap.
  void allocate_then_turn(size_t size) {
    blocks_[at_++] = stamped(size);
    ++live_;
    if (at_ == kept_begin_) at_ = kept_end_;
    if (at_ >= length_) turn();
  }
  // sh8bench's step: skip the kept fifth, then close the lap or allocate.
  void turn_or_allocate(size_t size) {
    if (at_ == kept_begin_) at_ = kept_end_;
    if (at_ >= length_) {
      turn();
      return;
    }
    blocks_[at_++] = stamped(size);
    ++live_;
  }
  // sh6bench's end: free what this lap allocated; false if a stamp was broken.
  bool free_rest() {
    bool held = true;
    for (long i = 0; i < at_; ++i) {
      if (!stamp_held(blocks_[i])) held = false;
      std::free(blocks_[i]);
    }
    live_ -= at_;
    std::free(blocks_);
    return held;
  }
  long live() const { return live_; }
  // sh8bench's end, checked by the main thread: the blocks left in the ring.
  long broken_left() const {
    long broken = 0;
    for (long i = 0; i < length_; ++i)
      if ((i < at_ || (i >= kept_begin_ && i < kept_end_)) && !stamp_held(blocks_[i])) ++broken;
    return broken;
  }

 private:
  void turn() {
    kept_begin_ = kept_end_ >= length_ ? 0 : kept_end_;
    kept_end_ = std::min(kept_begin_ + length_ / 5, length_);
    for (long i = 0; i < kept_begin_; ++i) std::free(blocks_[i]);
    for (long i = length_; i > kept_end_; --i) std::free(blocks_[i - 1]);
    live_ -= kept_begin_ + length_ - kept_end_;
    at_ = 0;
  }

  long length_;
  char** blocks_;
  long at_ = 0;
  long live_ = 0;  // blocks allocated and not yet freed
  long kept_begin_ = length_, kept_end_ = length_;
};

void start_threads(pthread_t* threads, int n, void* (*body)(void*), void* argument, size_t stride) {
  for (int t = 0; t < n; ++t)
    if (int error = pthread_create(&threads[t], nullptr, body, static_cast<char*>(argument) + size_t(t) * stride)) {
      std::fprintf(stderr, "stress shbench: pthread_create failed (%d)\n", error);
      std::exit(1);
    }
}

// ---- sh6bench ----

struct Sh6 {
  long calls;  // per thread: laps over the sweep, and the ring's length
  size_t max_size;
  std::atomic<long> broken{0}, left{0};
};

void* sh6_thread(void* argument) {
  Sh6& c = *static_cast<Sh6*>(argument);
  LeftAtExit leaves;  // the kept fifths the original loses
  Ring ring(c.calls);
  for (long lap = 0; lap < c.calls; ++lap)
    for (size_t base = 1; base < c.max_size; base = base * 3 / 2 + 1)
      for (size_t size = base; size > 0; size /= 2) {
        int times = size < 10000 ? 10 : 1;  // smaller blocks more often
        if (size < 1000) times *= 5;
        if (size < 100) times *= 5;
        while (times--) ring.allocate_then_turn(size);
      }
  if (!ring.free_rest()) ++c.broken;
  c.left += ring.live();
  return nullptr;
}

int run_sh6(const std::string& app, int argc, char** argv) {
  long calls = -1, max_size = 1000;
  workload::Common common = workload::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--calls") calls = workload::whole_number(option, value, 1, 1L << 30);
    else if (option == "--max-size") max_size = workload::whole_number(option, value, 2, 1L << 30);
    else return false;
    return true;
  });
  // bench.sh's call count is 10,000 (8 s of CPU here); small is a fifth, about
  // 1 s under glibc on two cores, medium and large bench.sh's.
  if (calls < 0) calls = by_size(common.size, 100, 2000, 10000, 10000);
  const int threads = 2 * common.threads;
  std::printf("stress %s: threads=%d calls=%ld max_size=%ld\n", app.c_str(), threads, calls, max_size);
  Sh6 c;
  c.calls = calls / threads;
  c.max_size = size_t(max_size);
  Phase phase;
  {
    memprof::region parallel(MEMPROF_PAR);
    auto* ids = static_cast<pthread_t*>(std::malloc(sizeof(pthread_t) * size_t(threads)));
    start_threads(ids, threads, sh6_thread, &c, 0);
    for (int t = threads; t-- > 0;) pthread_join(ids[t], nullptr);
    std::free(ids);
  }
  int64_t ns = phase.end();
  memprof::metric("blocks_left_count", c.left);
  if (c.broken) verification_failed(app, std::to_string(c.broken.load()) + " thread(s) found a block overwritten");
  std::printf("stress %s: elapsed_ms=%.2f\n", app.c_str(), double(ns) / 1e6);
  return 0;
}

// ---- sh8bench ----

struct SizeCount {
  size_t size;
  long count;
};
constexpr SizeCount kHistogram[] = {{8, 1000},  {16, 5000},  {48, 1000},  {72, 100},    {148, 100},   {200, 100},
                                    {520, 10},  {1056, 5},   {4096, 3},   {9162, 1},    {34562, 1},   {168524, 1}};
constexpr long kSizes = sizeof kHistogram / sizeof kHistogram[0];

struct Sh8 {
  long iterations, ring;  // per thread
  long part, share;       // a thread's part of the foreign table, and its share of each part
  int threads;
  std::atomic<void*>* foreign;
};

// What each thread is handed: the original's 16-byte argument.
struct Sh8Thread {
  Sh8* c;
  long index;
};

// What each thread leaves, for the main thread to check after the measured
// phase: its ring (the original leaves it) and the foreign blocks it never saw.
struct Sh8Left {
  Ring* ring;
  long foreign;
};
Sh8Left* sh8_left;

void* sh8_thread(void* argument) {
  auto& me = *static_cast<Sh8Thread*>(argument);
  Sh8& c = *me.c;
  long frees_left = c.part, share_left = c.share;
  std::atomic<void*>* next = c.foreign + c.share * me.index;
  memprof::ignore_begin();
  void* place = ::operator new(sizeof(Ring));
  memprof::ignore_end();
  Ring& ring = *new (place) Ring(c.ring);
  sh8_left[me.index].ring = &ring;
  long kind = 0;
  for (long i = 0; i < c.iterations; ++i) {
    // Free what the main thread has made of this thread's share of every part.
    while (frees_left > 0) {
      void* block = next->load(std::memory_order_acquire);
      if (!block) break;
      std::free(block);
      ++next;
      --frees_left;
      if (--share_left == 0) {
        share_left = c.share;
        next += c.part - c.share;
      }
    }
    kind = (kind + 1) % kSizes;
    for (long n = kHistogram[kind].count; n > 0; --n) ring.turn_or_allocate(kHistogram[kind].size);
  }
  sh8_left[me.index].foreign = frees_left;
  return nullptr;
}

int run_sh8(const std::string& app, int argc, char** argv) {
  long heap = -1, iterations = -1, foreign = -1;
  workload::Common common = workload::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--heap") heap = workload::whole_number(option, value, 5, 1L << 32);
    else if (option == "--iterations") iterations = workload::whole_number(option, value, 1, 1L << 32);
    else if (option == "--foreign") foreign = workload::whole_number(option, value, 0, 1L << 32);
    else return false;
    return true;
  });
  // bench.sh: 1,000,000 pointers, 700,000 iterations, 10,000,000 foreign
  // blocks (22 s of CPU here); small keeps the pointers and scales the other
  // two by 1/14, about 1 s under glibc on two cores; medium and large are bench.sh's.
  if (heap < 0) heap = by_size(common.size, 100'000, 1'000'000, 1'000'000, 1'000'000);
  if (iterations < 0) iterations = by_size(common.size, 2'000, 50'000, 700'000, 700'000);
  if (foreign < 0) foreign = by_size(common.size, 28'571, 714'286, 10'000'000, 10'000'000);
  const int threads = 2 * common.threads;
  std::printf("stress %s: threads=%d heap=%ld iterations=%ld foreign=%ld\n", app.c_str(), threads, heap, iterations,
              foreign);
  // Every thread frees an equal share of every thread's equal part.
  const long square = long(threads) * threads;
  foreign = foreign / square * square;
  if (foreign == 0) workload::usage_error("--foreign must be at least (2 x --threads) squared");
  Sh8 c;
  c.iterations = iterations / threads;
  c.ring = heap / threads;
  c.part = foreign / threads;
  c.share = c.part / threads;
  c.threads = threads;
  memprof::ignore_begin();
  sh8_left = new Sh8Left[size_t(threads)];
  memprof::ignore_end();
  Phase phase;
  {
    memprof::region parallel(MEMPROF_PAR);
    auto* ids = static_cast<pthread_t*>(std::malloc(sizeof(pthread_t) * size_t(threads)));
    auto* table = static_cast<std::atomic<void*>*>(std::malloc(sizeof(void*) * size_t(foreign)));
    auto* handed = static_cast<Sh8Thread*>(std::malloc(sizeof(Sh8Thread) * size_t(threads)));
    std::memset(static_cast<void*>(table), 0, sizeof(void*) * size_t(foreign));
    c.foreign = table;
    for (int t = 0; t < threads; ++t) handed[t] = {&c, t};
    start_threads(ids, threads, sh8_thread, handed, sizeof(Sh8Thread));
    // The foreign blocks, one size for all; each holds the address of its entry.
    for (long i = 0; i < foreign; ++i) {
      auto* block = static_cast<std::atomic<void*>**>(std::malloc(kHistogram[0].size));
      *block = &table[i];
      table[i].store(block, std::memory_order_release);
    }
    for (int t = threads; t-- > 0;) pthread_join(ids[t], nullptr);
    std::free(ids);
    std::free(table);
    std::free(handed);
  }
  int64_t ns = phase.end();
  long broken = 0, left = threads;  // the rings themselves
  for (int t = 0; t < threads; ++t) {
    broken += sh8_left[t].ring->broken_left();
    left += sh8_left[t].ring->live() + sh8_left[t].foreign;
  }
  memprof::metric("blocks_left_count", left);
  if (broken) verification_failed(app, std::to_string(broken) + " block(s) left in the rings were overwritten");
  std::printf("stress %s: elapsed_ms=%.2f\n", app.c_str(), double(ns) / 1e6);
  return 0;
}

}  // namespace

const App kSh6bench = {"sh6bench", "sh6bench options: [--calls C] [--max-size S]", run_sh6};
const Registration kSh6benchRegistered(kSh6bench);
const App kSh8bench = {"sh8bench", "sh8bench options: [--heap H] [--iterations I] [--foreign F]", run_sh8};
const Registration kSh8benchRegistered(kSh8bench);

}  // namespace allocstamp::stress
