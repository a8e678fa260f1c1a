// large.cpp — two programs at the ends of the size range, as mimalloc-bench
// runs them. malloc-large: 20 slots, each step puts a new zero-filled array of
// 5–25 MiB (new[] with value-initialisation, so every page is written) into
// a random slot, dropping the array it held; where allocators differ in how
// they map and return memory. alloc-test (node-dot-cpp's allocator tester):
// each thread keeps 2^18/threads item slots, fills about half with blocks of
// 5 B–1 KiB (smaller sizes likelier), then picks slots with an 80/20-skewed
// distribution: a full slot's block is read through and deleted, an empty one
// gets a new block, memset; the RSS is read from /proc (through stdio, whose
// blocks count) after the set-up, every 1/32 of the loop, at the end and once
// the threads are joined. No block crosses threads.
// Verified: malloc-large a tag in each array before it is dropped;
// alloc-test each block's bytes as the read before its delete finds them.
#include <algorithm>
#include <atomic>
#include <memory>
#include <random>
#include <thread>

#include <unistd.h>

#include "command_line.h"
#include "stress.h"

namespace allocstamp::stress {
namespace {

constexpr int kSlots = 20;
constexpr int kMinArray = 5 << 20, kMaxArray = 25 << 20;

// One copy's steps; returns how many dropped arrays lost their tag.
long replace_arrays(long steps, uint64_t seed) {
  std::mt19937 generator(static_cast<std::mt19937::result_type>(seed));
  std::uniform_int_distribution<int> slot_of(0, kSlots - 1), size_of(kMinArray, kMaxArray);
  std::unique_ptr<char[]> arrays[kSlots];
  char tags[kSlots] = {};
  long bad = 0;
  for (long i = 0; i < steps; ++i) {
    const int slot = slot_of(generator);  // the slot first, as the original draws
    const size_t size = size_t(size_of(generator));
    if (arrays[slot] && arrays[slot][0] != tags[slot]) ++bad;
    arrays[slot] = std::make_unique<char[]>(size);
    arrays[slot][0] = tags[slot] = char(i | 1);
  }
  return bad;
}

int run_large(const std::string& app, int argc, char** argv) {
  long steps = -1;
  workload::Common common = workload::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--steps") steps = workload::whole_number(option, value, 1, 1L << 30);
    else return false;
    return true;
  });
  // The original: 2000 steps (medium, large); small a tenth.
  if (steps < 0) steps = by_size(common.size, 20, 200, 2000, 2000);
  // The original seeds its mt19937 with 42; --seed's default 1 is that seed.
  const uint64_t seed = 42 + common.seed - 1;
  std::atomic<long> wrong{0};
  Phase phase;
  run_copies(common.threads, [&](int) { wrong += replace_arrays(steps, seed); });
  int64_t ns = phase.end();
  report_rate("arrays_per_s", uint64_t(steps) * uint64_t(common.threads), ns);
  if (wrong) verification_failed(app, "a large array lost what was written into it");
  summary("stress %s: threads=%d steps=%ld elapsed_ms=%.2f\n", app.c_str(), common.threads, steps, double(ns) / 1e6);
  return 0;
}

// node-dot-cpp's generator: a xorshift whose output is the state before the
// step times an odd constant, high half.
class TesterRng {
 public:
  explicit TesterRng(uint64_t seed) : state_(seed) {}
  uint32_t next32() {
    const uint64_t out = state_ * 0xd989bcacc137dcd5ull;
    state_ ^= state_ >> 11;
    state_ ^= state_ << 31;
    state_ ^= state_ >> 18;
    return uint32_t(out >> 32);
  }
  uint64_t next64() {
    const uint64_t high = next32();
    return (high << 32) + next32();
  }

 private:
  uint64_t state_;
};

// A block size up to 1 KiB: a size class (2^k, 2^(k+1)] for k = 2..9, each
// half as likely as the one before (the last as likely as the one before it),
// and a uniform size within it.
size_t block_size(uint64_t draw) {
  const unsigned k = 2 + unsigned(__builtin_ctzll((draw & 127) + 1));
  draw >>= 7;
  return (draw & ((size_t(1) << k) - 1)) + 1 + (size_t(1) << k);
}

// The slot to visit: the item slots cut into 7 ranges of binomial(6, 0.2)
// sizes, smallest first, picked with the probabilities in reverse order, so
// 0.0064% of the slots take 26% of the visits; uniform within a range.
class SkewedSlots {
 public:
  explicit SkewedSlots(uint32_t items) {
    const double p[7] = {0.262144, 0.393216, 0.24576, 0.08192, 0.01536, 0.001536, 0.000064};
    below_[0] = uint32_t(UINT32_MAX * p[0]);
    for (int i = 1; i < 5; ++i) below_[i] = below_[i - 1] + uint32_t(UINT32_MAX * p[i]);
    below_[5] = uint32_t(UINT32_MAX * (1. - p[6]));
    start_[0] = 0;
    for (int i = 0; i < 6; ++i) start_[i + 1] = start_[i] + uint32_t(items * p[6 - i]);
    start_[7] = items;
  }
  uint32_t pick(uint32_t which, uint32_t where) const {
    int range = 0;
    while (range < 6 && which >= below_[range]) ++range;
    return start_[range] + where % (start_[range + 1] - start_[range]);
  }

 private:
  uint32_t below_[6];
  uint32_t start_[8];
};

struct Item {
  uint8_t* block;
  uint64_t size;
};

// The process's resident pages, read as the original reads them: through
// stdio, whose FILE and buffer are part of its allocations.
size_t resident_pages() {
  FILE* f = std::fopen("/proc/self/statm", "rb");
  if (!f) return 0;
  char text[4096] = {};
  size_t n = std::fread(text, 1, sizeof text - 1, f);
  std::fclose(f);
  text[n] = 0;
  const char* second = std::strchr(text, ' ');
  return second ? size_t(std::atol(second)) : 0;
}

// Bytes of the block that are not the value it was filled with.
long refilled(const Item& item) {
  uint64_t word_fill;
  std::memset(&word_fill, int(uint8_t(item.size)), sizeof word_fill);
  long bad = 0;
  size_t words = item.size / sizeof(uint64_t);
  for (size_t i = 0; i < words; ++i) {
    uint64_t w;
    std::memcpy(&w, item.block + i * sizeof w, sizeof w);
    bad += w != word_fill;
  }
  for (size_t i = words * sizeof(uint64_t); i < item.size; ++i) bad += item.block[i] != uint8_t(item.size);
  return bad;
}

struct TesterThread {
  uint64_t seed;
  uint32_t items;
  long operations;
  long bad;
  size_t resident_peak_pages;
};

void new_block(Item& item, uint64_t draw) {
  item.size = block_size(draw);
  item.block = new uint8_t[item.size];
  std::memset(item.block, uint8_t(item.size), item.size);
}

// One thread of alloc-test: set-up, the visits in 32 parts, clean-up.
void test_thread(TesterThread* t) {
  TesterRng rng(t->seed);
  const SkewedSlots slots(t->items);
  Item* items = new Item[t->items]();
  for (uint32_t i = 0; i < t->items / 32; ++i) {
    const uint32_t filled = rng.next32();
    for (uint32_t j = 0; j < 32; ++j)
      if ((filled >> j) & 1) new_block(items[i * 32 + j], rng.next64());
  }
  size_t peak = resident_pages();
  const long per_part = t->operations / 32;
  long bad = 0;
  for (int part = 0; part < 32; ++part) {
    for (long v = 0; v < per_part; ++v) {
      const uint32_t which = rng.next32(), where = rng.next32();
      Item& item = items[slots.pick(which, where)];
      if (item.block) {
        bad += refilled(item);
        delete[] item.block;
        item.block = nullptr;
      } else {
        new_block(item, rng.next64());
      }
    }
    peak = std::max(peak, resident_pages());
  }
  for (uint32_t i = 0; i < t->items; ++i)
    if (items[i].block) {
      bad += refilled(items[i]);
      delete[] items[i].block;
    }
  delete[] items;
  t->bad = bad;
  t->resident_peak_pages = std::max(peak, resident_pages());
}

int run_alloc_test(const std::string& app, int argc, char** argv) {
  constexpr int kMaxThreads = 32;  // the original's
  long operations = -1, items = 1 << 18;
  workload::Common common = workload::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--operations") operations = workload::whole_number(option, value, 32, 1L << 40);
    else if (option == "--items") items = workload::whole_number(option, value, 32, 1L << 30);
    else return false;
    return true;
  });
  // The skew's smallest range holds 0.0064% of a thread's slots; empty, it
  // would divide by zero (the original's limit: 16 threads of 2^18 items).
  if (common.threads > kMaxThreads || double(items / common.threads) * 0.000064 < 1)
    workload::usage_error("alloc-test with --items " + std::to_string(items) + " and --threads " +
                    std::to_string(common.threads) + " leaves a thread fewer than 15625 slots or runs more than 32 " +
                    "threads — lower --threads or raise --items (the default 262144 allows 16 threads)");
  // The original: 100,000,000 visits per thread (medium, large); small a tenth.
  if (operations < 0) operations = by_size(common.size, 100000, 10000000, 100000000, 100000000);
  // The original seeds every thread's generator with 41; --seed's default 1 is that seed.
  TesterThread threads[kMaxThreads];
  for (int t = 0; t < common.threads; ++t)
    threads[t] = {41 + common.seed - 1, uint32_t(items / common.threads), operations, 0, 0};
  // The original prints before its threads start, so stdout's buffer is live throughout.
  std::printf("stress %s: threads=%d items=%ld operations=%ld\n", app.c_str(), common.threads, items, operations);
  Phase phase;
  std::thread workers[kMaxThreads];
  for (int t = 0; t < common.threads; ++t) workers[t] = std::thread(test_thread, &threads[t]);
  for (int t = 0; t < common.threads; ++t) workers[t].join();
  int64_t ns = phase.end();
  const size_t after_pages = resident_pages();  // the original reads it once more, its threads gone
  long bad = 0;
  size_t peak = 0;
  for (int t = 0; t < common.threads; ++t) bad += threads[t].bad, peak = std::max(peak, threads[t].resident_peak_pages);
  report_rate("visits_per_s", uint64_t(operations / 32 * 32) * uint64_t(common.threads), ns);
  if (bad) verification_failed(app, "a block lost the bytes it was filled with");
  const size_t page_kb = size_t(sysconf(_SC_PAGESIZE)) / 1024;
  std::printf("stress %s: threads=%d rss_peak_kb=%zu rss_after_kb=%zu elapsed_ms=%.2f\n", app.c_str(),
              common.threads, peak * page_kb, after_pages * page_kb, double(ns) / 1e6);
  return 0;
}

}  // namespace

const App kMallocLarge = {"malloc-large", "malloc-large options: [--steps N]", run_large};
const Registration kMallocLargeRegistered(kMallocLarge);
const App kAllocTest = {"alloc-test", "alloc-test options: [--operations N] [--items I]", run_alloc_test};
const Registration kAllocTestRegistered(kAllocTest);

}  // namespace allocstamp::stress
