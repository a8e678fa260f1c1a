// xmalloc.cpp — Lever and Boreham's xmalloc test (mimalloc-bench's
// xmalloc-test), allocating as it does: producer threads fill batches of 4096
// blocks of one size (bench.sh: 64 bytes), writing the first 128 bytes of
// each, and push them on a stack that holds at most 100 batches (a producer
// waits while it is full); consumer threads pop the newest batch and free its
// blocks and the batch, so every block dies in a thread that did not allocate
// it. --threads N runs N producers and N consumers, as `xmalloc-test -w N`.
// The original runs for a fixed time (-t 5) and scores frees per second; here
// each producer makes a fixed number of batches (--batches) and the time is
// the whole run, threads started and joined, which is what the original's
// clock spans. Verified: as many blocks freed as allocated, and the last
// block of every batch still holds what its producer wrote.
#include <condition_variable>
#include <cstring>
#include <mutex>

#include "command_line.h"
#include "os_threads.h"
#include "stress.h"

namespace allocstamp::stress {
namespace {

constexpr int kPerBatch = 4096;
constexpr int kMostBatches = 100;  // on the stack at once
constexpr size_t kWritten = 128;   // bytes of a block its producer writes

struct Batch {
  Batch* next;
  void* blocks[kPerBatch];
};

// One cache line's worth per consumer, so their counts do not share one
// (malloc'd as the original's array is: padded, not alignas, which a block
// from malloc need not honour — UBSan caught the misaligned access).
struct Count {
  long freed;
  char pad[64 - sizeof(long)];
};
static_assert(sizeof(Count) == 64, "the original's 64-byte count");

struct Xmalloc {
  long batches = 0;  // per producer
  size_t object_size = 64;
  std::mutex mutex;
  std::condition_variable not_empty, not_full;
  Batch* top = nullptr;
  int held = 0;
  int producers_left = 0;
  Count* counts = nullptr;
  long broken = 0;
};
Xmalloc x;  // the original's globals: the threads' one argument is a consumer's index

void* allocate(size_t size) {
  void* p = std::malloc(size);
  if (!p) {
    std::fprintf(stderr, "stress: malloc(%zu) failed\n", size);
    std::exit(1);
  }
  return p;
}

void push(Batch* b) {
  std::unique_lock<std::mutex> lock(x.mutex);
  x.not_full.wait(lock, [] { return x.held < kMostBatches; });
  b->next = x.top;
  x.top = b;
  ++x.held;
  x.not_empty.notify_one();
}

// The newest batch; null once every producer is done and none is left.
Batch* pop() {
  std::unique_lock<std::mutex> lock(x.mutex);
  x.not_empty.wait(lock, [] { return x.top || x.producers_left == 0; });
  Batch* b = x.top;
  if (b) {
    x.top = b->next;
    --x.held;
    x.not_full.notify_one();
  }
  return b;
}

void* produce(void*) {
  const size_t written = x.object_size < kWritten ? x.object_size : kWritten;
  for (long n = 0; n < x.batches; ++n) {
    auto* b = static_cast<Batch*>(allocate(sizeof(Batch)));
    for (int i = 0; i < kPerBatch; ++i) {
      b->blocks[i] = allocate(x.object_size);
      std::memset(b->blocks[i], i % 256, written);
    }
    push(b);
  }
  std::lock_guard<std::mutex> lock(x.mutex);
  if (--x.producers_left == 0) x.not_empty.notify_all();
  return nullptr;
}

void* consume(void* argument) {
  const int index = *static_cast<int*>(argument);
  while (Batch* b = pop()) {
    if (*static_cast<unsigned char*>(b->blocks[kPerBatch - 1]) != (kPerBatch - 1) % 256) {
      std::lock_guard<std::mutex> lock(x.mutex);
      ++x.broken;
    }
    for (void* block : b->blocks) std::free(block);
    std::free(b);
    x.counts[index].freed += kPerBatch;
  }
  return nullptr;
}

int run_xmalloc(const std::string& app, int argc, char** argv) {
  long batches = -1;
  workload::Common common = workload::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--batches") batches = workload::whole_number(option, value, 1, 1L << 30);
    else if (option == "--object-size") x.object_size = size_t(workload::whole_number(option, value, 1, 1L << 30));
    else return false;
    return true;
  });
  // bench.sh runs `xmalloc-test -w N -t 5 -s 64` for 5 s; small is about one second of that at one thread here.
  x.batches = batches > 0 ? batches : by_size(common.size, 40, 2000, 8000, 32000);
  const int workers = common.threads;
  x.producers_left = workers;
  // Three arrays from malloc, as the original's: thread ids, the counts, the consumers' indices.
  auto* ids = static_cast<pthread_t*>(std::malloc(sizeof(pthread_t) * size_t(2 * workers)));
  x.counts = static_cast<Count*>(std::malloc(sizeof(Count) * size_t(workers)));
  auto* indices = static_cast<int*>(std::malloc(sizeof(int) * size_t(workers)));
  for (int i = 0; i < workers; ++i) x.counts[i].freed = 0;
  Phase phase;
  {
    memprof::region parallel(MEMPROF_PAR);
    for (int i = 0; i < workers; ++i) {
      indices[i] = i;
      ids[2 * i] = start_thread(consume, &indices[i]);
      ids[2 * i + 1] = start_thread(produce, nullptr);
    }
    for (int i = 0; i < 2 * workers; ++i) join_thread(ids[i]);
  }
  int64_t ns = phase.end();
  long freed = 0;
  for (int i = 0; i < workers; ++i) freed += x.counts[i].freed;
  const long allocated = x.batches * workers * kPerBatch;
  report_rate("blocks_per_s", uint64_t(freed), ns);
  std::free(indices);
  std::free(x.counts);
  std::free(ids);
  if (x.broken) verification_failed(app, std::to_string(x.broken) + " batch(es) held an overwritten block");
  if (freed != allocated) verification_failed(app, "blocks allocated and freed differ");
  std::printf("stress %s: producers=%d consumers=%d blocks=%ld elapsed_ms=%.2f\n", app.c_str(), workers, workers,
              allocated, double(ns) / 1e6);
  return 0;
}

}  // namespace

const App kXmalloc = {"xmalloc",
                      "xmalloc options: [--batches B] [--object-size S] (--threads N: N producers, N consumers; "
                      "bench.sh: --object-size 64 for 5 s)",
                      run_xmalloc};
const Registration kXmallocRegistered(kXmalloc);

}  // namespace allocstamp::stress
