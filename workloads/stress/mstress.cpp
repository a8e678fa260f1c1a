// mstress.cpp — Daan Leijen's mstress (mimalloc-bench), allocating as it does.
// Every round, each thread (the main thread is thread 0, the others are
// started anew) makes 100·scale·(t mod 8 + 1) short-lived blocks of 1–16 words
// and half as many retained ones of 1–64 words (one in fifty of either 100
// times larger, rarer ones 1000 and 10,000 times), frees a random short-lived
// one two times in three, and one time in four swaps one with a slot of a
// transfer array all threads share, so a block dies in whichever thread picks
// it up. Between rounds the main thread frees about half of the transfer
// array, and all of it after the last. Every word of a block is written when
// it is allocated and checked before its free, as the original does (most of
// its time). The generator, its seeds and the order of its draws are the
// original's, so at --seed 1 one thread allocates exactly as
// `mstress 1 <scale> <iterations>`; the time is the whole run (the original
// prints none: mimalloc-bench takes its wall time).
#include <atomic>
#include <cstring>

#include "command_line.h"
#include "os_threads.h"
#include "stress.h"

namespace allocstamp::stress {
namespace {

constexpr size_t kTransfers = 1000;
constexpr uint64_t kFill = 0x9E3779B97F4A7C15ull;  // word i of an n-word block holds (n - i) ^ kFill

// mstress's generator: the state is replaced by splitmix64's finalizer of it.
struct Draws {
  uint64_t state;
  uint64_t next() {
    uint64_t x = state;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    state = x ^ (x >> 31);
    return state;
  }
  // True with probability (percent + 1) / 100: the original's test is `<=`.
  bool chance(uint64_t percent) { return next() % 100 <= percent; }
};

// The original's streams start at fixed states; --seed moves them all.
uint64_t first_state(uint64_t seed, uint64_t original) { return original + (seed - 1) * 0xD6E8FEB86659FD93ull; }

struct Shared {
  long scale = 50;
  uint64_t seed = 1;
  std::atomic<void*> transfer[kTransfers] = {};
  std::atomic<long> broken{0};
};

void* alloc_words(size_t words, Draws& draws) {
  if (draws.chance(1)) {
    if (draws.chance(1)) words *= 10000;
    else if (draws.chance(10)) words *= 1000;
    else words *= 100;
  }
  if (words == 40) ++words;  // the original avoids 320 bytes, the size glibc's threads use for stack growth
  auto* block = static_cast<uint64_t*>(std::malloc(words * sizeof(uint64_t)));
  if (!block) {
    std::fprintf(stderr, "stress: malloc(%zu) failed\n", words * sizeof(uint64_t));
    std::exit(1);
  }
  for (size_t i = 0; i < words; ++i) block[i] = (words - i) ^ kFill;
  return block;
}

void free_words(void* p, Shared& shared) {
  if (p) {
    const auto* block = static_cast<const uint64_t*>(p);
    const uint64_t words = block[0] ^ kFill;
    for (uint64_t i = 0; i < words; ++i)
      if ((block[i] ^ kFill) != words - i) {
        ++shared.broken;
        return;  // kept: its words no longer say how long it is
      }
  }
  std::free(p);
}

struct Worker {
  Shared* shared;
  long index;
};

// One thread's round.
void* round_of(void* argument) {
  const Worker& w = *static_cast<Worker*>(argument);
  Shared& shared = *w.shared;
  Draws draws{first_state(shared.seed, uint64_t(w.index + 1) * 43)};
  size_t allocs = size_t(100 * shared.scale * (w.index % 8 + 1));
  size_t retain = allocs / 2;
  // Arrays from malloc and realloc as the original's, so their blocks are in the figures alike.
  void** data = nullptr;
  size_t data_size = 0, data_top = 0;
  auto** retained = static_cast<void**>(std::malloc(retain * sizeof(void*)));
  size_t retain_top = 0;
  while (allocs > 0 || retain > 0) {
    if (retain == 0 || (draws.chance(50) && allocs > 0)) {
      --allocs;
      if (data_top >= data_size) {
        data_size += 100000;
        data = static_cast<void**>(std::realloc(data, data_size * sizeof(void*)));
      }
      data[data_top++] = alloc_words(size_t(1) << (draws.next() % 5), draws);
    } else {
      retained[retain_top++] = alloc_words(size_t(1) << (draws.next() % 7), draws);
      --retain;
    }
    if (draws.chance(66) && data_top > 0) {
      size_t i = draws.next() % data_top;
      free_words(data[i], shared);
      data[i] = nullptr;
    }
    if (draws.chance(25) && data_top > 0) {
      size_t i = draws.next() % data_top;
      size_t slot = draws.next() % kTransfers;
      data[i] = shared.transfer[slot].exchange(data[i], std::memory_order_acquire);
    }
  }
  for (size_t i = 0; i < retain_top; ++i) free_words(retained[i], shared);
  for (size_t i = 0; i < data_top; ++i) free_words(data[i], shared);
  std::free(retained);
  std::free(data);
  return nullptr;
}

// Threads 1..n-1 started anew, thread 0 the caller; their ids in a malloc'd
// array as the original keeps them.
void run_round(Shared& shared, int threads) {
  memprof::region parallel(MEMPROF_PAR);
  auto* ids = static_cast<pthread_t*>(std::malloc(size_t(threads) * sizeof(pthread_t)));
  std::memset(ids, 0, size_t(threads) * sizeof(pthread_t));
  Worker workers[1024];
  for (int t = 0; t < threads; ++t) workers[t] = {&shared, t};
  for (int t = 1; t < threads; ++t) ids[t] = start_thread(round_of, &workers[t]);
  round_of(&workers[0]);
  for (int t = 1; t < threads; ++t) join_thread(ids[t]);
  std::free(ids);
}

int run_mstress(const std::string& app, int argc, char** argv) {
  long scale = -1, iterations = -1;
  workload::Common common = workload::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--scale") scale = workload::whole_number(option, value, 1, 1L << 20);
    else if (option == "--iterations") iterations = workload::whole_number(option, value, 1, 1L << 20);
    else return false;
    return true;
  });
  // bench.sh runs `mstress N 50 25` (medium); that takes 0.04 s at one thread
  // here, so small runs ten times the rounds. tiny's rounds are bench.sh's, so
  // that at two threads they overlap as they do there.
  if (scale < 0) scale = by_size(common.size, 50, 50, 50, 100);
  if (iterations < 0) iterations = by_size(common.size, 3, 250, 25, 250);
  static Shared shared;
  shared.scale = scale;
  shared.seed = common.seed;
  Draws draws{first_state(common.seed, 43 * 43)};
  // Said before the work, as the original does: stdout's buffer is one of the blocks live throughout.
  std::printf("stress %s: threads=%d scale=%ld iterations=%ld\n", app.c_str(), common.threads, scale, iterations);
  Phase phase;
  for (long n = 0; n < iterations; ++n) {
    run_round(shared, common.threads);
    for (auto& slot : shared.transfer)
      if (draws.chance(50) || n + 1 == iterations) free_words(slot.exchange(nullptr, std::memory_order_acquire), shared);
  }
  int64_t ns = phase.end();
  if (shared.broken) verification_failed(app, std::to_string(shared.broken.load()) + " block(s) were overwritten before their free");
  std::printf("stress %s: elapsed_ms=%.2f\n", app.c_str(), double(ns) / 1e6);
  return 0;
}

}  // namespace

const App kMstress = {"mstress", "mstress options: [--scale S] [--iterations I] (bench.sh: --scale 50 --iterations 25)",
                      run_mstress};
const Registration kMstressRegistered(kMstress);

}  // namespace allocstamp::stress
