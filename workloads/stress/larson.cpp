// larson.cpp — Larson and Krishnan's server simulation: each thread owns an
// array of blocks, repeatedly frees a random one and puts a block of random
// size in its place, and at the end of its round hands the array to a new
// thread, so most blocks die in a thread that did not allocate them.
// mimalloc-bench runs the original for 5 s (sizes 8–1000, 1000 blocks per
// thread, 5000 replacements per round); here the work is fixed instead, so
// elapsed_ns means the same under every allocator: --rounds rounds of
// --replacements per thread. Verified: every block's stamp before it is
// freed, and the blocks counted at the end.
#include <atomic>
#include <thread>
#include <vector>

#include "command_line.h"
#include "stress.h"

namespace allocstamp::stress {
namespace {

struct Config {
  int threads = 1;
  size_t min_size = 8, max_size = 1000;
  long blocks = 1000;        // per thread
  long replacements = 5000;  // per thread and round
  long rounds = 20;
  uint64_t seed = 1;
};

struct Slot {
  void* block;
  size_t size;
  uint64_t tag;
};

// One thread's round over one array: it frees blocks other threads allocated.
void round_over(std::vector<Slot>& slots, const Config& c, uint64_t seed, std::atomic<long>& broken) {
  Rng rng(seed);
  long bad = 0;
  for (long i = 0; i < c.replacements; ++i) {
    Slot& s = slots[rng.below(uint32_t(slots.size()))];
    if (!stamp_ok(s.block, s.size, s.tag)) ++bad;
    std::free(s.block);
    s.size = rng.between(c.min_size, c.max_size);
    s.tag = seed + uint64_t(i);
    s.block = stamped_alloc(s.size, s.tag);
  }
  broken += bad;
}

int run_larson(const std::string& app, int argc, char** argv) {
  Config c;
  long rounds = -1, blocks = -1, replacements = -1;
  tm::Common common = tm::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--rounds") rounds = tm::whole_number(option, value, 1, 1L << 20);
    else if (option == "--blocks") blocks = tm::whole_number(option, value, 1, 1L << 24);
    else if (option == "--replacements") replacements = tm::whole_number(option, value, 1, 1L << 32);
    else if (option == "--min-size") c.min_size = size_t(tm::whole_number(option, value, 1, 1L << 30));
    else if (option == "--max-size") c.max_size = size_t(tm::whole_number(option, value, 1, 1L << 30));
    else return false;
    return true;
  });
  if (common.size == "tiny") c.rounds = 4, c.replacements = 2000;
  else if (common.size == "small") c.rounds = 200, c.replacements = 80000;
  else if (common.size == "medium") c.rounds = 500, c.replacements = 100000;
  else if (common.size == "large") c.rounds = 2000, c.replacements = 100000;
  else tm::usage_error("--size takes tiny, small, medium or large, not '" + common.size + "'");
  if (rounds > 0) c.rounds = rounds;
  if (blocks > 0) c.blocks = blocks;
  if (replacements > 0) c.replacements = replacements;
  if (c.min_size > c.max_size) tm::usage_error("--min-size cannot exceed --max-size");
  c.threads = common.threads;
  c.seed = common.seed;

  // Each thread's first array, filled before the measured phase.
  std::vector<std::vector<Slot>> arrays(size_t(c.threads));
  Rng fill(c.seed);
  for (auto& slots : arrays) {
    slots.resize(size_t(c.blocks));
    for (Slot& s : slots) {
      s.size = fill.between(c.min_size, c.max_size);
      s.tag = fill.next();
      s.block = stamped_alloc(s.size, s.tag);
    }
  }
  std::atomic<long> broken{0};
  Phase phase;
  {
    memprof::region parallel(MEMPROF_PAR);
    for (long r = 0; r < c.rounds; ++r) {
      // A new thread per array each round: the previous round's threads allocated its blocks.
      std::vector<std::thread> workers;
      for (int t = 0; t < c.threads; ++t)
        workers.emplace_back(round_over, std::ref(arrays[size_t((t + r) % c.threads)]), std::cref(c),
                             c.seed * 1000003 + uint64_t(r * c.threads + t), std::ref(broken));
      for (auto& w : workers) w.join();
    }
  }
  int64_t ns = phase.end();
  report_rate("replacements_per_s", uint64_t(c.rounds * c.replacements * c.threads), ns);
  long blocks_left = 0;
  for (auto& slots : arrays)
    for (Slot& s : slots) {
      if (!stamp_ok(s.block, s.size, s.tag)) ++broken;
      std::free(s.block);
      ++blocks_left;
    }
  if (broken) verification_failed(app, std::to_string(broken.load()) + " block(s) were overwritten before their free");
  if (blocks_left != c.blocks * c.threads) verification_failed(app, "blocks were lost");
  std::printf("stress %s: threads=%d rounds=%ld replacements=%ld elapsed_ms=%.2f\n", app.c_str(), c.threads, c.rounds,
              c.replacements, double(ns) / 1e6);
  return 0;
}

}  // namespace

const App kLarson = {"larson", "larson options: [--rounds R] [--blocks B] [--replacements N] [--min-size S] [--max-size S]",
                     run_larson};

}  // namespace allocstamp::stress
