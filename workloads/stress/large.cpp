// large.cpp — two programs at the ends of the size range. malloc-large
// (mimalloc-bench's): blocks of 2–25 MiB, a few live at a time, each touched
// page by page, where allocators differ in how they map and return memory.
// alloc-test (a fixed-size pool test): threads swap blocks of one size in and
// out of a shared array of slots, so blocks are freed by whichever thread
// takes them out. Verified: the stamps before each free (malloc-large: also a
// byte per page).
#include <atomic>
#include <thread>
#include <vector>

#include "command_line.h"
#include "stress.h"

namespace allocstamp::stress {
namespace {

int run_large(const std::string& app, int argc, char** argv) {
  long blocks = -1, live = 5;
  tm::Common common = tm::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--blocks") blocks = tm::whole_number(option, value, 1, 1L << 30);
    else if (option == "--live") live = tm::whole_number(option, value, 1, 1024);
    else return false;
    return true;
  });
  if (blocks < 0) blocks = by_size(common.size, 20, 400, 2000, 10000);
  std::atomic<long> wrong{0};
  Phase phase;
  on_threads(common.threads, [&](int t) {
    Rng rng(common.seed * 65537 + uint64_t(t));
    std::vector<std::pair<unsigned char*, size_t>> held(size_t(live), {nullptr, 0});
    long bad = 0;
    auto release = [&](std::pair<unsigned char*, size_t>& h) {
      if (!h.first) return;
      for (size_t at = 4096; at + 8 < h.second; at += 4096)
        if (h.first[at] != static_cast<unsigned char>(at >> 12)) ++bad;
      if (!stamp_ok(h.first, h.second, h.second)) ++bad;
      std::free(h.first);
    };
    for (long i = 0; i < blocks; ++i) {
      auto& h = held[size_t(i % live)];
      release(h);
      h.second = rng.between(2u << 20, 25u << 20);
      h.first = static_cast<unsigned char*>(stamped_alloc(h.second, h.second));
      for (size_t at = 4096; at + 8 < h.second; at += 4096) h.first[at] = static_cast<unsigned char>(at >> 12);
    }
    for (auto& h : held) release(h);
    wrong += bad;
  });
  int64_t ns = phase.end();
  report_rate("blocks_per_s", uint64_t(blocks) * uint64_t(common.threads), ns);
  if (wrong) verification_failed(app, "a large block lost what was written into it");
  std::printf("stress %s: threads=%d blocks=%ld elapsed_ms=%.2f\n", app.c_str(), common.threads, blocks,
              double(ns) / 1e6);
  return 0;
}

int run_alloc_test(const std::string& app, int argc, char** argv) {
  long operations = -1, slots = 4096;
  size_t size = 64;
  tm::Common common = tm::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--operations") operations = tm::whole_number(option, value, 1, 1L << 40);
    else if (option == "--slots") slots = tm::whole_number(option, value, 1, 1L << 24);
    else if (option == "--block-size") size = size_t(tm::whole_number(option, value, 1, 1L << 24));
    else return false;
    return true;
  });
  if (operations < 0) operations = by_size(common.size, 20000, 30000000, 100000000, 400000000);
  std::vector<std::atomic<void*>> pool(static_cast<size_t>(slots));
  for (auto& s : pool) s.store(stamped_alloc(size, size));
  std::atomic<long> wrong{0};
  Phase phase;
  on_threads(common.threads, [&](int t) {
    Rng rng(common.seed * 999331 + uint64_t(t));
    long bad = 0;
    for (long i = 0; i < operations; ++i) {
      // Take a block out of a random slot (another thread may have put it there), put a new one in.
      void* old = pool[rng.below(uint32_t(slots))].exchange(stamped_alloc(size, size));
      if (!stamp_ok(old, size, size)) ++bad;
      std::free(old);
    }
    wrong += bad;
  });
  int64_t ns = phase.end();
  report_rate("swaps_per_s", uint64_t(operations) * uint64_t(common.threads), ns);
  for (auto& s : pool) {
    if (!stamp_ok(s.load(), size, size)) ++wrong;
    std::free(s.load());
  }
  if (wrong) verification_failed(app, "a pooled block was overwritten before its free");
  std::printf("stress %s: threads=%d operations=%ld elapsed_ms=%.2f\n", app.c_str(), common.threads, operations,
              double(ns) / 1e6);
  return 0;
}

}  // namespace

const App kMallocLarge = {"malloc-large", "malloc-large options: [--blocks N] [--live L]", run_large};
const App kAllocTest = {"alloc-test", "alloc-test options: [--operations N] [--slots S] [--block-size B]",
                        run_alloc_test};

}  // namespace allocstamp::stress
