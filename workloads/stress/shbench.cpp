// shbench.cpp — MicroQuill's SmartHeap benchmarks. sh6bench: each thread
// allocates runs of blocks whose sizes sweep up and down a range, then frees
// them in an order other than the one they were allocated in (every other
// one, then the rest backwards), round after round. sh8bench: the same, with
// a share of each run freed by the next thread. Verified: every block's
// stamp before its free, and every block freed.
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

#include "command_line.h"
#include "stress.h"

namespace allocstamp::stress {
namespace {

struct Handed {
  std::mutex mutex;
  std::vector<std::pair<void*, size_t>> blocks;
};

int run_sh(const std::string& app, int argc, char** argv, bool cross) {
  long rounds = -1, run = 1000;
  size_t min_size = 1, max_size = 1000;
  tm::Common common = tm::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--rounds") rounds = tm::whole_number(option, value, 1, 1L << 30);
    else if (option == "--run") run = tm::whole_number(option, value, 2, 1L << 24);
    else if (option == "--min-size") min_size = size_t(tm::whole_number(option, value, 1, 1L << 30));
    else if (option == "--max-size") max_size = size_t(tm::whole_number(option, value, 1, 1L << 30));
    else return false;
    return true;
  });
  if (rounds < 0) {
    if (common.size == "tiny") rounds = 10;
    else if (common.size == "small") rounds = 9000;
    else if (common.size == "medium") rounds = 30000;
    else if (common.size == "large") rounds = 100000;
    else tm::usage_error("--size takes tiny, small, medium or large, not '" + common.size + "'");
  }
  if (min_size > max_size) tm::usage_error("--min-size cannot exceed --max-size");
  const int threads = common.threads;
  std::vector<Handed> inbox(static_cast<size_t>(threads));
  std::atomic<long> wrong{0}, allocated{0}, freed{0};
  auto free_checked = [&](void* p, size_t size, long& bad) {
    if (!stamp_ok(p, size, size)) ++bad;
    std::free(p);
  };
  Phase phase;
  {
    memprof::region parallel(MEMPROF_PAR);
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t)
      workers.emplace_back([&, t] {
        std::vector<void*> blocks(static_cast<size_t>(run));
        std::vector<size_t> sizes(static_cast<size_t>(run));
        long bad = 0, mine_allocated = 0, mine_freed = 0;
        size_t size = min_size;
        long step = 1;
        for (long r = 0; r < rounds; ++r) {
          if (cross) {  // free what the previous thread handed over
            std::vector<std::pair<void*, size_t>> got;
            {
              std::lock_guard<std::mutex> lock(inbox[size_t(t)].mutex);
              got.swap(inbox[size_t(t)].blocks);
            }
            for (auto& [p, s] : got) free_checked(p, s, bad), ++mine_freed;
          }
          for (long i = 0; i < run; ++i) {  // sizes sweep up and down the range
            sizes[size_t(i)] = size;
            blocks[size_t(i)] = stamped_alloc(size, size);
            if (long(size) + step > long(max_size) || long(size) + step < long(min_size)) step = -step;
            size = size_t(long(size) + step);
          }
          mine_allocated += run;
          // Every other block, then the rest from the end; sh8 hands a quarter to the next thread.
          std::vector<std::pair<void*, size_t>> out;
          for (long i = 0; i < run; i += 2) {
            if (cross && i % 8 == 0) out.push_back({blocks[size_t(i)], sizes[size_t(i)]});
            else free_checked(blocks[size_t(i)], sizes[size_t(i)], bad), ++mine_freed;
          }
          for (long i = (run - 1) | 1; i > 0; i -= 2)
            if (i < run) free_checked(blocks[size_t(i)], sizes[size_t(i)], bad), ++mine_freed;
          if (cross && !out.empty()) {
            std::lock_guard<std::mutex> lock(inbox[size_t((t + 1) % threads)].mutex);
            auto& dest = inbox[size_t((t + 1) % threads)].blocks;
            dest.insert(dest.end(), out.begin(), out.end());
          }
        }
        wrong += bad;
        allocated += mine_allocated;
        freed += mine_freed;
      });
    for (auto& w : workers) w.join();
    long bad = 0;
    for (Handed& h : inbox)
      for (auto& [p, s] : h.blocks) free_checked(p, s, bad), ++freed;
    wrong += bad;
  }
  int64_t ns = phase.end();
  report_rate("blocks_per_s", uint64_t(allocated.load()), ns);
  if (wrong) verification_failed(app, std::to_string(wrong.load()) + " block(s) were overwritten before their free");
  if (freed != allocated) verification_failed(app, "blocks allocated and freed differ");
  std::printf("stress %s: threads=%d rounds=%ld blocks=%ld elapsed_ms=%.2f\n", app.c_str(), threads, rounds,
              allocated.load(), double(ns) / 1e6);
  return 0;
}

int run_sh6(const std::string& app, int argc, char** argv) { return run_sh(app, argc, argv, false); }
int run_sh8(const std::string& app, int argc, char** argv) { return run_sh(app, argc, argv, true); }

}  // namespace

const App kSh6bench = {"sh6bench", "sh6bench options: [--rounds R] [--run N] [--min-size S] [--max-size S]", run_sh6};
const App kSh8bench = {"sh8bench", "sh8bench options: [--rounds R] [--run N] [--min-size S] [--max-size S]", run_sh8};

}  // namespace allocstamp::stress
