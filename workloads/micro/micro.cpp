// micro.cpp — the `micro` binary: Google Benchmark micro-benchmarks of the
// allocator's entry points, one family per workload, run as `micro <family>
// --threads N --size tiny|small|medium|large --seed S` (Contract 3). Each
// repetition of each benchmark becomes a record line `@micro benchmark=...
// size_bytes= threads= repetition= iterations= real_ns_per_op= cpu_ns_per_op=
// items_per_s=` on memprof's channel (memprof::record, as @metric lines go), which
// bench turns into micro.csv; Google Benchmark's own table goes to stdout.
// Families: malloc-free (one size at a time, a ladder of 8 B to 1 MiB),
// batch (allocate 1000, then free them in order or reversed), new-delete
// (std::map's 40-byte node), realloc (doubling growth from 16 B to 1 MiB),
// aligned (aligned_alloc at 64 and 4096), calloc (4 KiB), cross-thread (a
// pair of threads passing blocks through a ring: one allocates, the other
// frees; always 2 threads).
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <memprof/memprof.h>

#include "command_line.h"
#include "key_names.h"

namespace {

using namespace allocstamp;

const size_t kLadder[] = {8, 16, 24, 32, 48, 64, 96, 128, 256, 512, 1024, 4096, 16384, 65536, 262144, 1048576};
constexpr int kBatch = 1000;

void malloc_free(benchmark::State& state) {
  const size_t size = size_t(state.range(0));
  for (auto _ : state) {
    void* p = std::malloc(size);
    benchmark::DoNotOptimize(p);
    std::free(p);
  }
  state.SetItemsProcessed(state.iterations());
}

void batch(benchmark::State& state, bool reversed) {
  const size_t size = size_t(state.range(0));
  void* blocks[kBatch];
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) benchmark::DoNotOptimize(blocks[i] = std::malloc(size));
    if (reversed)
      for (int i = kBatch - 1; i >= 0; --i) std::free(blocks[i]);
    else
      for (int i = 0; i < kBatch; ++i) std::free(blocks[i]);
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

struct MapNode {  // the size of std::map<long, long>'s node: colour, 3 links, the pair
  int colour;
  MapNode *parent, *left, *right;
  long key, value;
};
static_assert(sizeof(MapNode) == 48 || sizeof(MapNode) == 40 + 8, "a red-black node with a 16-byte pair");

void new_delete(benchmark::State& state) {
  for (auto _ : state) {
    MapNode* n = new MapNode;
    benchmark::DoNotOptimize(n);
    delete n;
  }
  state.SetItemsProcessed(state.iterations());
}

void realloc_growth(benchmark::State& state) {
  long reallocs = 0;
  for (auto _ : state) {
    void* p = std::malloc(16);
    for (size_t size = 32; size <= (1u << 20); size *= 2, ++reallocs) {
      p = std::realloc(p, size);
      benchmark::DoNotOptimize(p);
      static_cast<char*>(p)[size - 1] = 1;
    }
    std::free(p);
  }
  state.SetItemsProcessed(reallocs);
}

void aligned(benchmark::State& state) {
  const size_t alignment = size_t(state.range(0));
  for (auto _ : state) {
    void* p = std::aligned_alloc(alignment, alignment);
    benchmark::DoNotOptimize(p);
    std::free(p);
  }
  state.SetItemsProcessed(state.iterations());
}

void calloc_4k(benchmark::State& state) {
  for (auto _ : state) {
    void* p = std::calloc(1, 4096);
    benchmark::DoNotOptimize(p);
    std::free(p);
  }
  state.SetItemsProcessed(state.iterations());
}

// The ring between the pair of cross-thread threads: thread 0 allocates and
// pushes, thread 1 pops and frees; both run the same number of iterations.
struct Ring {
  static constexpr uint64_t kSize = 1024;
  alignas(64) std::atomic<uint64_t> head{0};
  alignas(64) std::atomic<uint64_t> tail{0};
  void* slots[kSize];
};
Ring ring;

void cross_thread(benchmark::State& state) {
  const size_t size = size_t(state.range(0));
  if (state.thread_index() == 0) {
    for (auto _ : state) {
      void* p = std::malloc(size);
      uint64_t h = ring.head.load(std::memory_order_relaxed);
      while (h - ring.tail.load(std::memory_order_acquire) == Ring::kSize) {
      }
      ring.slots[h % Ring::kSize] = p;
      ring.head.store(h + 1, std::memory_order_release);
    }
  } else {
    for (auto _ : state) {
      uint64_t t = ring.tail.load(std::memory_order_relaxed);
      while (ring.head.load(std::memory_order_acquire) == t) {
      }
      std::free(ring.slots[t % Ring::kSize]);
      ring.tail.store(t + 1, std::memory_order_release);
    }
  }
  state.SetItemsProcessed(state.iterations());
}

// Writes each repetition's figures as a record line where memprof's records go.
class RecordReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.run_type != Run::RT_Iteration || r.error_occurred) continue;
      // "malloc_free/64/real_time/threads:1" -> "malloc_free/64" (threads have their own field).
      std::string name = r.benchmark_name();
      for (const char* suffix : {"/real_time", "/threads:"})
        if (size_t at = name.find(suffix); at != std::string::npos) name.erase(at);
      long size = 0;
      if (size_t slash = name.find('/'); slash != std::string::npos) size = std::atol(name.c_str() + slash + 1);
      auto items = r.counters.find("items_per_second");
      char line[512];
      std::snprintf(line, sizeof line,
                    "@micro benchmark=%s size_bytes=%ld threads=%lld repetition=%lld iterations=%lld "
                    "real_ns_per_op=%.4f cpu_ns_per_op=%.4f items_per_s=%.0f\n",
                    name.c_str(), size, (long long)r.threads, (long long)(r.repetition_index < 0 ? 0 : r.repetition_index),
                    (long long)r.iterations, r.GetAdjustedRealTime(), r.GetAdjustedCPUTime(),
                    items == r.counters.end() ? 0.0 : double(items->second));
      memprof::record(line);
    }
  }
};

struct Family {
  const char* name;
  void (*add)(int threads);
};

template <typename Fn>
benchmark::internal::Benchmark* add(const std::string& name, Fn fn, int threads) {
  return benchmark::RegisterBenchmark(name.c_str(), fn)->Threads(threads)->UseRealTime();
}

const Family kFamilies[] = {
    {"malloc-free", [](int t) { for (size_t s : kLadder) add("malloc_free", malloc_free, t)->Arg(long(s)); }},
    {"batch",
     [](int t) {
       add("batch_in_order", [](benchmark::State& s) { batch(s, false); }, t)->Arg(64);
       add("batch_reversed", [](benchmark::State& s) { batch(s, true); }, t)->Arg(64);
     }},
    {"new-delete", [](int t) { add("new_delete", new_delete, t)->Arg(48); }},
    {"realloc", [](int t) { add("realloc_doubling", realloc_growth, t)->Arg(16); }},
    {"aligned",
     [](int t) {
       add("aligned_alloc", aligned, t)->Arg(64);
       add("aligned_alloc", aligned, t)->Arg(4096);
     }},
    {"calloc", [](int t) { add("calloc", calloc_4k, t)->Arg(4096); }},
    {"cross-thread", [](int) { add("cross_thread_free", cross_thread, 2)->Arg(64); }},
};

const char* usage_text() {
  static char text[1024];
  int n = std::snprintf(text, sizeof text, "usage: micro <");
  const char* sep = "";
  for (const Family& f : kFamilies) n += std::snprintf(text + n, sizeof text - n, "%s%s", sep, f.name), sep = "|";
  std::snprintf(text + n, sizeof text - n,
                "> [--threads N] [--size tiny|small|medium|large] [--seed S]\n"
                "  sizes: Google Benchmark's time per benchmark and repetitions (tiny 1 ms x 1, small 20 ms x 3,\n"
                "  medium 100 ms x 5, large 500 ms x 10); cross-thread always runs 2 threads\n");
  return text;
}

}  // namespace

int main(int argc, char** argv) {
  workload::set_program({"micro", usage_text()});
  if (argc < 2) workload::usage_error("which family?");
  std::string name = argv[1];
  const Family* family = nullptr;
  for (const Family& f : kFamilies)
    if (name == f.name) family = &f;
  if (!family) workload::usage_error("unknown family '" + name + "'");
  workload::Common common = workload::parse_common(argc, argv, [](const std::string&, const char*) { return false; });
  std::string min_time = workload::by_size<std::string>(common.size, "0.001", "0.02", "0.1", "0.5");
  std::string repetitions = workload::by_size<std::string>(common.size, "1", "3", "5", "10");
  family->add(common.threads);
  std::string a0 = "micro", a1 = "--benchmark_min_time=" + min_time, a2 = "--benchmark_repetitions=" + repetitions,
              a3 = "--benchmark_report_aggregates_only=false";
  char* gb_argv[] = {a0.data(), a1.data(), a2.data(), a3.data(), nullptr};
  int gb_argc = 4;
  benchmark::Initialize(&gb_argc, gb_argv);
  RecordReporter reporter;
  auto start = std::chrono::steady_clock::now();
  memprof::phase_begin();
  size_t ran = benchmark::RunSpecifiedBenchmarks(&reporter);
  memprof::phase_end();
  memprof::metric(keys::elapsed_ns, std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
  memprof::metric("benchmarks_count", int64_t(ran));
  benchmark::Shutdown();
  return ran > 0 ? 0 : 1;
}
