// xmalloc.cpp — Lever and Boreham's xmalloc test: producer threads allocate
// blocks of random sizes and pass them in batches to consumer threads, which
// free them: every block dies in a thread that did not allocate it. --threads
// N runs N producers and N consumers (so one thread is one pair). Verified:
// every block's stamp before its free, and as many frees as allocations.
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "command_line.h"
#include "stress.h"

namespace allocstamp::stress {
namespace {

constexpr int kBatch = 256;  // blocks handed over at once

struct Batch {
  void* blocks[kBatch];
  uint32_t sizes[kBatch];
  uint64_t tag;
};

// Batches in flight between producers and consumers (bounded: producers wait).
class Handoff {
 public:
  explicit Handoff(size_t limit) : limit_(limit) {}
  void put(Batch* b) {
    std::unique_lock<std::mutex> lock(mutex_);
    room_.wait(lock, [&] { return queue_.size() < limit_; });
    queue_.push_back(b);
    ready_.notify_one();
  }
  // Null once every producer is done and nothing is left.
  Batch* take() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return !queue_.empty() || producers_left_ == 0; });
    if (queue_.empty()) return nullptr;
    Batch* b = queue_.front();
    queue_.pop_front();
    room_.notify_one();
    return b;
  }
  void producers(int n) { producers_left_ = n; }
  void producer_done() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (--producers_left_ == 0) ready_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_, room_;
  std::deque<Batch*> queue_;
  size_t limit_;
  int producers_left_ = 0;
};

int run_xmalloc(const std::string& app, int argc, char** argv) {
  long batches = -1;
  size_t min_size = 8, max_size = 1024;
  tm::Common common = tm::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--batches") batches = tm::whole_number(option, value, 1, 1L << 30);
    else if (option == "--min-size") min_size = size_t(tm::whole_number(option, value, 1, 1L << 30));
    else if (option == "--max-size") max_size = size_t(tm::whole_number(option, value, 1, 1L << 30));
    else return false;
    return true;
  });
  long per_producer;
  if (common.size == "tiny") per_producer = 100;
  else if (common.size == "small") per_producer = 4000;
  else if (common.size == "medium") per_producer = 20000;
  else if (common.size == "large") per_producer = 80000;
  else tm::usage_error("--size takes tiny, small, medium or large, not '" + common.size + "'");
  if (batches > 0) per_producer = batches;
  if (min_size > max_size) tm::usage_error("--min-size cannot exceed --max-size");
  const int pairs = common.threads;

  Handoff handoff(size_t(4 * pairs));
  handoff.producers(pairs);
  std::atomic<long> allocated{0}, freed{0}, broken{0};
  Phase phase;
  {
    memprof::region parallel(MEMPROF_PAR);
    std::vector<std::thread> threads;
    for (int p = 0; p < pairs; ++p)
      threads.emplace_back([&, p] {
        Rng rng(common.seed * 7919 + uint64_t(p));
        for (long b = 0; b < per_producer; ++b) {
          Batch* batch = new Batch;
          batch->tag = rng.next();
          for (int i = 0; i < kBatch; ++i) {
            batch->sizes[i] = uint32_t(rng.between(min_size, max_size));
            batch->blocks[i] = stamped_alloc(batch->sizes[i], batch->tag + uint64_t(i));
          }
          allocated += kBatch;
          handoff.put(batch);
        }
        handoff.producer_done();
      });
    for (int c = 0; c < pairs; ++c)
      threads.emplace_back([&] {
        long mine = 0, bad = 0;
        while (Batch* batch = handoff.take()) {
          for (int i = 0; i < kBatch; ++i) {
            if (!stamp_ok(batch->blocks[i], batch->sizes[i], batch->tag + uint64_t(i))) ++bad;
            std::free(batch->blocks[i]);
          }
          mine += kBatch;
          delete batch;
        }
        freed += mine;
        broken += bad;
      });
    for (auto& t : threads) t.join();
  }
  int64_t ns = phase.end();
  report_rate("blocks_per_s", uint64_t(allocated.load()), ns);
  if (broken) verification_failed(app, std::to_string(broken.load()) + " block(s) were overwritten before their free");
  if (freed != allocated) verification_failed(app, "blocks allocated and freed differ");
  std::printf("stress %s: producers=%d consumers=%d blocks=%ld elapsed_ms=%.2f\n", app.c_str(), pairs, pairs,
              allocated.load(), double(ns) / 1e6);
  return 0;
}

}  // namespace

const App kXmalloc = {"xmalloc", "xmalloc options: [--batches B] [--min-size S] [--max-size S] (--threads N: N producers, N consumers)",
                      run_xmalloc};

}  // namespace allocstamp::stress
