// glibc_bench.cpp — glibc's malloc benchmarks as mimalloc-bench runs them.
// glibc-simple (bench-malloc-simple): for block sizes b, 2b and 4b, runs of
// a fixed number of allocations made n blocks at a time (n = 25, 100, 400,
// 1600; every byte written; the first half freed oldest first, the rest
// newest first); each size's four runs go once to warm up, once on the main
// thread, once on a new thread (its own arena in glibc) and once more on the
// main thread, now no longer single-threaded. glibc-thread
// (bench-malloc-thread): each thread replaces blocks of a 1024-block working
// set, slots and sizes (4 B-32 KiB, density ∝ 1/size²) from two tables drawn
// before the run, writing every byte; the working set stays live to the exit.
// In both the blocks escape (into the pointer array, the working set), so no
// call can be elided, in the originals or here. Verified: the bytes written
// (glibc-simple: the last batch of every run before its frees; glibc-thread:
// the working set after the run).
#include <atomic>

#include "command_line.h"
#include "stress.h"

namespace allocstamp::stress {
namespace {

const int kBatches[] = {25, 100, 400, 1600};
constexpr int kLargestBatch = 1600;

// The blocks of `n` pointers in `blocks` hold bytes 0, 1, 2, ... of `size`.
long unwritten(char* const* blocks, int n, size_t size) {
  long bad = 0;
  for (int i = 0; i < n; ++i)
    for (size_t b = 0; b < size; ++b) bad += blocks[i][b] != char(b);
  return bad;
}

// One run: `allocations` blocks of `size` bytes, `n` live at a time.
long batch_run(char** blocks, int n, size_t size, long allocations) {
  const long rounds = allocations / n;
  long bad = 0;
  for (long r = 0; r < rounds; ++r) {
    // A byte at a time through the pointer array, as the original writes: char
    // stores may alias blocks[i], so each one reloads it.
    for (int i = 0; i < n; ++i) {
      blocks[i] = static_cast<char*>(std::malloc(size));
      for (size_t b = 0; b < size; ++b) blocks[i][b] = char(b);
    }
    if (r + 1 == rounds) bad += unwritten(blocks, n, size);
    for (int i = 0; i < n / 2; ++i) std::free(blocks[i]);
    for (int i = n - 1; i >= n / 2; --i) std::free(blocks[i]);
  }
  return bad;
}

// One size's sixteen runs: a warm-up and a measured set on the calling
// thread, a set on a thread of its own, a set on the calling thread again.
long bench_size(size_t size, long allocations) {
  char** blocks = static_cast<char**>(std::malloc(kLargestBatch * sizeof(char*)));
  long bad = 0;
  for (int set = 0; set < 2; ++set)
    for (int n : kBatches) bad += batch_run(blocks, n, size, allocations);
  on_pthreads(1, [&](int) {
    for (int n : kBatches) bad += batch_run(blocks, n, size, allocations);
  });
  for (int n : kBatches) bad += batch_run(blocks, n, size, allocations);
  std::free(blocks);
  return bad;
}

int run_simple(const std::string& app, int argc, char** argv) {
  long allocations = -1, size = 16;
  workload::Common common = workload::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--allocations") allocations = workload::whole_number(option, value, kLargestBatch, 1L << 40);
    else if (option == "--block-size") size = workload::whole_number(option, value, 1, 1L << 24);
    else return false;
    return true;
  });
  // The original: 2,000,000 allocations per run, 48 runs (medium, large); small a tenth.
  if (allocations < 0) allocations = by_size(common.size, 8000, 200000, 2000000, 2000000);
  std::atomic<long> wrong{0};
  Phase phase;
  run_copies(common.threads, [&](int) {
    long bad = 0;
    for (long s : {size, 2 * size, 4 * size}) bad += bench_size(size_t(s), allocations);
    wrong += bad;
  });
  int64_t ns = phase.end();
  uint64_t mallocs = 0;  // 3 sizes, 4 sets of runs
  for (int n : kBatches) mallocs += uint64_t(common.threads) * 3 * 4 * uint64_t(allocations / n * n);
  report_rate("mallocs_per_s", mallocs, ns);
  if (wrong) verification_failed(app, "a block lost a byte written into it");
  summary("stress %s: threads=%d allocations=%ld block_size=%ld elapsed_ms=%.2f\n", app.c_str(), common.threads,
          allocations, size, double(ns) / 1e6);
  return 0;
}

constexpr unsigned kWorkingSet = 1024;
constexpr unsigned kSizeDraws = 8000, kSlotDraws = 4 * kWorkingSet;

// The tables every thread walks through, drawn once before the run.
struct Draws {
  unsigned sizes[kSizeDraws];
  unsigned slots[kSlotDraws];
};

// A size of density ∝ 1/size² on [4, 32768] from one rand() draw, by the
// inverse of its distribution function. In float, as the original computes
// it, so the sizes are the original's to the byte.
unsigned inverse_square_size(int draw) {
  const float low = 1.0f / 4, high = 1.0f / 32768;
  const float u = float(unsigned(draw)) / float(RAND_MAX);
  return unsigned(1.0f / ((high - low) * u + low));
}

// The original draws from rand() unseeded, which is seed 1 (--seed's default).
void draw(Draws& d, uint64_t seed) {
  std::srand(unsigned(seed));
  for (unsigned& s : d.sizes) s = inverse_square_size(std::rand());
  for (unsigned& s : d.slots) s = unsigned(std::rand()) % kWorkingSet;
}

// One thread's loop; returns the bytes of its working set that do not hold
// what was written. The working set is left live, as the original leaves it.
long replace_blocks(const Draws& d, long operations) {
  LeftAtExit leaves;  // the working set outlives this frame on purpose: not a leak for LeakSanitizer
  char* set[kWorkingSet] = {};
  unsigned held[kWorkingSet] = {};
  unsigned next_size = 0, next_slot = 0;
  for (long i = 0; i < operations; ++i) {
    // Each table is read from its second entry on, wrapping around.
    next_slot = next_slot + 1 == kSlotDraws ? 0 : next_slot + 1;
    next_size = next_size + 1 == kSizeDraws ? 0 : next_size + 1;
    const unsigned slot = d.slots[next_slot], size = d.sizes[next_size];
    std::free(set[slot]);
    char* p = set[slot] = static_cast<char*>(std::malloc(size));
    held[slot] = size;
    for (unsigned b = 0; b < size; ++b) p[b] = char(b);
  }
  long bad = 0;
  for (unsigned s = 0; s < kWorkingSet; ++s)
    if (set[s]) bad += unwritten(&set[s], 1, held[s]);
  return bad;
}

int run_thread(const std::string& app, int argc, char** argv) {
  long operations = -1;
  workload::Common common = workload::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--operations") operations = workload::whole_number(option, value, 1, 1L << 40);
    else return false;
    return true;
  });
  // The original runs for 2 seconds; here a fixed count per thread, so the figures
  // are deterministic: small is about what glibc does here in those 2 seconds.
  if (operations < 0) operations = by_size(common.size, 20000, 30000000, 50000000, 200000000);
  Draws draws;
  draw(draws, common.seed);
  std::atomic<long> wrong{0};
  Phase phase;
  run_copies(common.threads, [&](int) { wrong += replace_blocks(draws, operations); });
  int64_t ns = phase.end();
  report_rate("mallocs_per_s", uint64_t(common.threads) * uint64_t(operations), ns);
  if (wrong) verification_failed(app, "a block of the working set lost a byte written into it");
  std::printf("stress %s: threads=%d operations=%ld elapsed_ms=%.2f\n", app.c_str(), common.threads, operations,
              double(ns) / 1e6);
  return 0;
}

}  // namespace

const App kGlibcSimple = {"glibc-simple", "glibc-simple options: [--allocations A] [--block-size B]", run_simple};
const Registration kGlibcSimpleRegistered(kGlibcSimple);
const App kGlibcThread = {"glibc-thread", "glibc-thread options: [--operations N]", run_thread};
const Registration kGlibcThreadRegistered(kGlibcThread);

}  // namespace allocstamp::stress
