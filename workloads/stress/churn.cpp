// churn.cpp — the stress workload "churn": random-size malloc/free churn plus cross-thread
// frees, 2 threads by default. Also the program scripts/overhead times with and without memprof.
#include <atomic>
#include <barrier>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <string_view>
#include <thread>
#include <vector>

#include <memprof/memprof.h>

#include "command_line.h"
#include "key_names.h"

namespace allocstamp {
namespace {

constexpr std::size_t kMinBlockBytes = 8;
constexpr std::size_t kMaxBlockBytes = 1024;
constexpr std::uint64_t kCrossThreadEvery = 16;  // every 16th block is freed by the next thread

struct Config {
  unsigned threads = 2;
  std::uint64_t iterations = 4'000'000;  // per thread
  std::uint32_t slots = 4096;
  std::uint64_t seed = 1;
  bool fill = false;  // --use all: write every byte of a new block, as a program initialising it would
};

// xorshift64*: a few cycles per number, so the allocator dominates the profile.
class Xorshift {
 public:
  explicit Xorshift(std::uint64_t seed) : state_(splitmix(seed)) {}

  std::uint64_t next() {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 0x2545F4914F6CDD1DULL;
  }

  // Uniform in [0, bound) by multiply-shift (no division); bound < 2^32.
  std::uint32_t below(std::uint32_t bound) {
    return std::uint32_t(((next() >> 32) * bound) >> 32);
  }

 private:
  // Spreads consecutive seeds apart and never yields the all-zero state xorshift cannot leave.
  static std::uint64_t splitmix(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    x ^= x >> 31;
    return x ? x : 1;
  }

  std::uint64_t state_;
};

// Bounded lock-free single-producer/single-consumer queue of blocks to free.
// Indices only grow; a slot is blocks_[index % kCapacity].
class BlockRing {
 public:
  static constexpr std::uint64_t kCapacity = 1024;

  // Producer side. False when full.
  bool push(void* block) {
    std::uint64_t write = write_index_.load(std::memory_order_relaxed);
    if (write - read_index_.load(std::memory_order_acquire) == kCapacity) return false;
    blocks_[write % kCapacity] = block;
    write_index_.store(write + 1, std::memory_order_release);
    return true;
  }

  // Consumer side: frees every block received so far.
  void free_received() {
    std::uint64_t read = read_index_.load(std::memory_order_relaxed);
    std::uint64_t write = write_index_.load(std::memory_order_acquire);
    if (read == write) return;
    for (; read != write; ++read) std::free(blocks_[read % kCapacity]);
    read_index_.store(read, std::memory_order_release);
  }

 private:
  alignas(64) std::atomic<std::uint64_t> write_index_{0};
  alignas(64) std::atomic<std::uint64_t> read_index_{0};
  alignas(64) void* blocks_[kCapacity];
};

// One thread's share. Thread i frees what arrives in rings[i] and sends every
// 16th block to rings[(i + 1) % threads]. With one thread that is its own ring:
// the block goes through the ring and is freed by the same thread on the next
// drain, so one thread runs the same mallocs, frees and ring traffic as many.
void churn(unsigned thread_index, const Config& config, std::vector<BlockRing>& rings,
           std::barrier<>& all_done_sending) {
  Xorshift rng(config.seed * 0x100000001B3ULL + thread_index);
  std::vector<void*> slots(config.slots, nullptr);
  BlockRing& incoming = rings[thread_index];
  BlockRing& outgoing = rings[(thread_index + 1) % config.threads];

  for (std::uint64_t i = 1; i <= config.iterations; ++i) {
    void*& slot = slots[rng.below(config.slots)];
    std::free(slot);
    std::size_t size = kMinBlockBytes + rng.below(kMaxBlockBytes - kMinBlockBytes + 1);
    auto* block = static_cast<unsigned char*>(std::malloc(size));
    if (!block) {
      std::fprintf(stderr, "churn: malloc(%zu) failed\n", size);
      std::exit(1);
    }
    if (config.fill) {
      std::memset(block, int(i), size);
    } else {
      block[0] = static_cast<unsigned char>(i);
      block[size - 1] = static_cast<unsigned char>(size);
    }
    if (i % kCrossThreadEvery == 0) {
      slot = nullptr;
      if (!outgoing.push(block)) std::free(block);
    } else {
      slot = block;
    }
    incoming.free_received();
  }

  for (void* block : slots) std::free(block);
  // Nobody pushes after this barrier, so one drain empties the ring for good.
  all_done_sending.arrive_and_wait();
  incoming.free_received();
}

const char kUsage[] =
    "usage: churn [--threads N (2)] [--iterations N per thread (4000000)]"
    " [--size tiny|small|medium|large] [--slots N (4096)] [--seed S (1)] [--use ends|all (ends)]\n";

[[noreturn]] void usage_error(const char* message, std::string_view argument) {
  std::fprintf(stderr, "churn: %s '%.*s'\n%s", message, int(argument.size()), argument.data(), kUsage);
  std::exit(2);
}

std::uint64_t parse_count(std::string_view option, const char* text, std::uint64_t min, std::uint64_t max) {
  char* end = nullptr;
  errno = 0;
  unsigned long long value = std::strtoull(text, &end, 10);
  if (errno || end == text || *end || *text == '-' || value < min || value > max)
    usage_error("bad value for", option);
  return value;
}

// --size as bench passes it (Contract 3): iterations per thread.
std::uint64_t iterations_for_size(const char* size) {
  return workload::by_size<std::uint64_t>(size, 20'000, 1'000'000, 4'000'000, 16'000'000);
}

Config parse_arguments(int argc, char** argv) {
  Config config;
  int first = 1;
  if (argc > 1 && std::string_view(argv[1]) == "churn") first = 2;  // the app name, as bench runs it
  for (int i = first; i < argc; ++i) {
    std::string_view option = argv[i];
    if (i + 1 == argc) usage_error("missing value for", option);
    const char* value = argv[++i];
    if (option == "--threads")
      config.threads = unsigned(parse_count(option, value, 1, 1024));
    else if (option == "--iterations")
      config.iterations = parse_count(option, value, 0, UINT64_MAX);
    else if (option == "--size")
      config.iterations = iterations_for_size(value);
    else if (option == "--slots")
      config.slots = std::uint32_t(parse_count(option, value, 1, UINT32_MAX));
    else if (option == "--seed")
      config.seed = parse_count(option, value, 0, UINT64_MAX);
    else if (option == "--use") {
      if (std::string_view(value) != "ends" && std::string_view(value) != "all")
        usage_error("--use takes 'ends' or 'all', not", value);
      config.fill = std::string_view(value) == "all";
    }
    else
      usage_error("unknown option", option);
  }
  return config;
}

}  // namespace
}  // namespace allocstamp

int main(int argc, char** argv) {
  using namespace allocstamp;
  workload::set_program({"churn", kUsage});  // a --size error names churn
  Config config = parse_arguments(argc, argv);
  std::vector<BlockRing> rings(config.threads);
  std::barrier all_done_sending(config.threads);

  memprof::phase_begin();
  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < config.threads; ++t)
    workers.emplace_back(churn, t, std::cref(config), std::ref(rings), std::ref(all_done_sending));
  for (std::thread& worker : workers) worker.join();
  auto elapsed = std::chrono::steady_clock::now() - start;
  memprof::phase_end();
  memprof::metric(keys::elapsed_ns, std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count());

  std::printf("churn: threads=%u iterations=%llu elapsed_ns=%lld\n", config.threads,
              static_cast<unsigned long long>(config.iterations),
              static_cast<long long>(std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count()));
  return 0;
}
