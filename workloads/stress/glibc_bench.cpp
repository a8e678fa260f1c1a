// glibc_bench.cpp — glibc's own malloc benchmarks. glibc-simple
// (bench-malloc-simple): for each size of a ladder, allocate a batch of
// blocks of that size and free them, many times, in a tight loop on one
// thread (--threads runs that many independent copies). glibc-thread
// (bench-malloc-thread): each thread keeps a working set of blocks and
// replaces a random one with a block of random size, in a tight loop.
// Verified: the stamps of the working set's blocks before their frees.
#include <atomic>
#include <thread>
#include <vector>

#include "command_line.h"
#include "stress.h"

namespace allocstamp::stress {
namespace {

const size_t kLadder[] = {16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
constexpr int kBatch = 100;  // bench-malloc-simple's batch of live blocks

int run_simple(const std::string& app, int argc, char** argv) {
  long rounds = -1;
  tm::Common common = tm::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--rounds") rounds = tm::whole_number(option, value, 1, 1L << 32);
    else return false;
    return true;
  });
  if (rounds < 0) rounds = by_size(common.size, 200, 20000, 100000, 1000000);
  std::atomic<long> wrong{0};
  Phase phase;
  on_threads(common.threads, [&](int) {
    void* blocks[kBatch];
    long bad = 0;
    for (size_t size : kLadder)
      for (long r = 0; r < rounds / 9 + 1; ++r) {
        for (int i = 0; i < kBatch; ++i) blocks[i] = stamped_alloc(size, uint64_t(i));
        for (int i = 0; i < kBatch; ++i) {
          if (!stamp_ok(blocks[i], size, uint64_t(i))) ++bad;
          std::free(blocks[i]);
        }
      }
    wrong += bad;
  });
  int64_t ns = phase.end();
  uint64_t ops = uint64_t(common.threads) * 9 * uint64_t(rounds / 9 + 1) * kBatch;
  report_rate("mallocs_per_s", ops, ns);
  if (wrong) verification_failed(app, "a block was overwritten before its free");
  std::printf("stress %s: threads=%d mallocs=%lu elapsed_ms=%.2f\n", app.c_str(), common.threads, (unsigned long)ops,
              double(ns) / 1e6);
  return 0;
}

int run_thread(const std::string& app, int argc, char** argv) {
  long operations = -1, working_set = 1000;
  size_t max_size = 32768;
  tm::Common common = tm::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--operations") operations = tm::whole_number(option, value, 1, 1L << 40);
    else if (option == "--working-set") working_set = tm::whole_number(option, value, 1, 1L << 24);
    else if (option == "--max-size") max_size = size_t(tm::whole_number(option, value, 16, 1L << 30));
    else return false;
    return true;
  });
  if (operations < 0) operations = by_size(common.size, 20000, 10000000, 50000000, 200000000);
  std::atomic<long> wrong{0};
  Phase phase;
  on_threads(common.threads, [&](int t) {
    Rng rng(common.seed * 31 + uint64_t(t));
    std::vector<void*> blocks(static_cast<size_t>(working_set), nullptr);
    std::vector<size_t> sizes(static_cast<size_t>(working_set), 0);
    long bad = 0;
    for (long i = 0; i < operations; ++i) {
      size_t slot = rng.below(uint32_t(working_set));
      if (blocks[slot]) {
        if (!stamp_ok(blocks[slot], sizes[slot], slot)) ++bad;
        std::free(blocks[slot]);
      }
      // bench-malloc-thread's sizes: mostly small, a few up to max_size.
      sizes[slot] = rng.below(8) ? rng.between(4, 256) : rng.between(257, max_size);
      blocks[slot] = stamped_alloc(sizes[slot], slot);
    }
    for (size_t s = 0; s < blocks.size(); ++s)
      if (blocks[s]) std::free(blocks[s]);
    wrong += bad;
  });
  int64_t ns = phase.end();
  report_rate("mallocs_per_s", uint64_t(common.threads) * uint64_t(operations), ns);
  if (wrong) verification_failed(app, "a block was overwritten before its free");
  std::printf("stress %s: threads=%d operations=%ld elapsed_ms=%.2f\n", app.c_str(), common.threads, operations,
              double(ns) / 1e6);
  return 0;
}

}  // namespace

const App kGlibcSimple = {"glibc-simple", "glibc-simple options: [--rounds R]", run_simple};
const App kGlibcThread = {"glibc-thread", "glibc-thread options: [--operations N] [--working-set W] [--max-size S]",
                          run_thread};

}  // namespace allocstamp::stress
