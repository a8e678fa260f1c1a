// mixed.cpp — the mixed-lifetime stress programs. mstress (Daan Leijen's, from
// mimalloc-bench): each thread keeps a set of blocks of mixed sizes — mostly
// small, some large — replacing some and keeping others for long, and every
// so often hands part of its set to the next thread, which frees them.
// rptest (rpmalloc's benchmark): sizes skewed to small, a working set that
// grows to a peak and shrinks again in cycles, and a share of the blocks freed
// by another thread. Verified: every block's stamp before its free.
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "command_line.h"
#include "stress.h"

namespace allocstamp::stress {
namespace {

struct Block {
  void* p;
  size_t size;
  uint64_t tag;
};

// Blocks passed from one thread to the next (freed by the receiver).
struct Mailbox {
  std::mutex mutex;
  std::vector<Block> blocks;
};

void drain(Mailbox& box, std::atomic<long>& wrong) {
  std::vector<Block> got;
  {
    std::lock_guard<std::mutex> lock(box.mutex);
    got.swap(box.blocks);
  }
  for (Block& b : got) {
    if (!stamp_ok(b.p, b.size, b.tag)) ++wrong;
    std::free(b.p);
  }
}

template <typename Body>
int run_mixed(const std::string& app, const tm::Common& common, long rounds, Body body) {
  const int threads = common.threads;
  std::vector<Mailbox> boxes(static_cast<size_t>(threads));
  std::atomic<long> wrong{0};
  Phase phase;
  on_threads(threads, [&](int t) {
    Rng rng(common.seed * 104729 + uint64_t(t));
    body(rng, boxes[size_t(t)], boxes[size_t((t + 1) % threads)], rounds, uint64_t(t) << 40, wrong);
  });
  for (Mailbox& box : boxes) drain(box, wrong);
  int64_t ns = phase.end();
  if (wrong) verification_failed(app, std::to_string(wrong.load()) + " block(s) were overwritten before their free");
  std::printf("stress %s: threads=%d rounds=%ld elapsed_ms=%.2f\n", app.c_str(), threads, rounds, double(ns) / 1e6);
  return 0;
}

int run_mstress(const std::string& app, int argc, char** argv) {
  long rounds = -1;
  tm::Common common = tm::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--rounds") rounds = tm::whole_number(option, value, 1, 1L << 30);
    else return false;
    return true;
  });
  if (rounds < 0) rounds = by_size(common.size, 5, 3000, 10000, 30000);
  return run_mixed(app, common, rounds,
                   [](Rng& rng, Mailbox& mine, Mailbox& next, long rounds, uint64_t tag, std::atomic<long>& wrong) {
                     std::vector<Block> kept;  // long-lived: survives rounds
                     for (long r = 0; r < rounds; ++r) {
                       drain(mine, wrong);
                       // Short-lived blocks: allocated and freed within the round.
                       std::vector<Block> round;
                       for (int i = 0; i < 2000; ++i) {
                         size_t size = rng.below(100) ? rng.between(8, 256) : rng.between(257, 64 * 1024);
                         round.push_back({stamped_alloc(size, ++tag), size, tag});
                       }
                       for (size_t i = 0; i < round.size(); ++i) {
                         Block& b = round[i];
                         if (i % 10 == 0) {  // a tenth lives on
                           kept.push_back(b);
                           continue;
                         }
                         if (!stamp_ok(b.p, b.size, b.tag)) ++wrong;
                         std::free(b.p);
                       }
                       // Half of the long-lived blocks go to the next thread, the oldest die here.
                       if (kept.size() > 1000) {
                         std::lock_guard<std::mutex> lock(next.mutex);
                         for (size_t i = 0; i < kept.size() / 2; ++i) next.blocks.push_back(kept[i]);
                         kept.erase(kept.begin(), kept.begin() + long(kept.size() / 2));
                       }
                     }
                     for (Block& b : kept) {
                       if (!stamp_ok(b.p, b.size, b.tag)) ++wrong;
                       std::free(b.p);
                     }
                   });
}

int run_rptest(const std::string& app, int argc, char** argv) {
  long rounds = -1;
  tm::Common common = tm::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--rounds") rounds = tm::whole_number(option, value, 1, 1L << 30);
    else return false;
    return true;
  });
  if (rounds < 0) rounds = by_size(common.size, 4, 1000, 3000, 10000);
  return run_mixed(app, common, rounds,
                   [](Rng& rng, Mailbox& mine, Mailbox& next, long rounds, uint64_t tag, std::atomic<long>& wrong) {
                     std::vector<Block> live;
                     for (long r = 0; r < rounds; ++r) {
                       drain(mine, wrong);
                       // Grow to a peak, then shrink: sizes 16 << k with k small most of the time.
                       size_t peak = 2000 + rng.below(6000);
                       while (live.size() < peak) {
                         size_t size = size_t(16) << (rng.below(4) == 0 ? rng.below(10) : rng.below(3));
                         size += rng.below(uint32_t(size));
                         live.push_back({stamped_alloc(size, ++tag), size, tag});
                       }
                       size_t low = peak / 4;
                       std::vector<Block> leaving;
                       while (live.size() > low) {
                         size_t i = rng.below(uint32_t(live.size()));
                         Block b = live[i];
                         live[i] = live.back();
                         live.pop_back();
                         if (rng.below(8) == 0) {  // an eighth die in the next thread
                           leaving.push_back(b);
                           continue;
                         }
                         if (!stamp_ok(b.p, b.size, b.tag)) ++wrong;
                         std::free(b.p);
                       }
                       std::lock_guard<std::mutex> lock(next.mutex);
                       next.blocks.insert(next.blocks.end(), leaving.begin(), leaving.end());
                     }
                     for (Block& b : live) {
                       if (!stamp_ok(b.p, b.size, b.tag)) ++wrong;
                       std::free(b.p);
                     }
                   });
}

}  // namespace

const App kMstress = {"mstress", "mstress options: [--rounds R]", run_mstress};
const App kRptest = {"rptest", "rptest options: [--rounds R]", run_rptest};

}  // namespace allocstamp::stress
