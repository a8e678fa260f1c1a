// insert.cpp — the "insert" app: fill the container with --elements distinct keys
// (random or sorted order), each thread its own shard (or all threads one
// tbb_concurrent_hash_map); the measured phase ends with the container full.
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

#include <memprof/memprof.h>

#include "dispatch.h"
#include "parallel.h"
#include "verify.h"

namespace allocstamp::maps {
namespace {

template <typename Adapter>
struct Insert {
  static void run(const Config& c, Result& r) {
    using K = typename Adapter::key_type;
    using V = typename Adapter::mapped_type;
    const KeySpace keys(c.seed, c.elements, c.order, KeyOf<K>::wide);
    Shards<Adapter> shards(c.threads);

    r.rss_baseline_kb = resident_kb();  // what the container's bytes per element leave out
    memprof::phase_begin();
    auto start = std::chrono::steady_clock::now();
    on_threads(c.threads, [&](int t) {
      Adapter& shard = shards.of_thread(t);
      for (uint64_t i = uint64_t(t); i < c.elements; i += uint64_t(c.threads)) {
        uint64_t raw = keys.raw(i);
        shard.insert(KeyOf<K>::make(raw), value_of<V>(raw));
      }
      shard.finish();
    });
    r.elapsed_ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::steady_clock::now() - start).count());
    r.held_bytes = memprof::current_bytes();
    memprof::phase_end();

    r.elements = shards.size();
    r.problem = check_content(shards, keys, c.elements, every_index(c.elements), no_index());
  }
};

}  // namespace

bool run_insert(const Config& config, Result& result) { return dispatch<Insert>(config, result); }

int64_t resident_kb() {
  int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char text[128];
  ssize_t got = read(fd, text, sizeof text - 1);
  close(fd);
  if (got <= 0) return -1;
  text[got] = 0;
  unsigned long long size = 0, resident = 0;
  if (std::sscanf(text, "%llu %llu", &size, &resident) != 2) return -1;
  return int64_t(resident * uint64_t(sysconf(_SC_PAGESIZE)) / 1024);
}

}  // namespace allocstamp::maps
