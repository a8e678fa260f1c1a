// churn.cpp — the "churn" app: fill to --elements, then, in the measured phase,
// --ops operations at that steady size: half look up a live key, half erase the
// oldest key and insert a new one (a sliding window of the key space per thread).
#include <chrono>
#include <vector>

#include <memprof/memprof.h>

#include "dispatch.h"
#include "parallel.h"
#include "random.h"
#include "verify.h"

namespace allocstamp::maps {
namespace {

// Thread t's keys are the indices j * threads + t; it holds the window j in [low, high),
// never empty (main requires --elements >= --threads).
struct Window {
  uint64_t low = 0, high = 0;
};

uint64_t since_ns(std::chrono::steady_clock::time_point start) {
  return uint64_t(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
}

template <typename Adapter>
struct Churn {
  static void run(const Config& c, Result& r) {
    if constexpr (!Adapter::erasable) {
      r.problem = "churn needs erase: '" + std::string(c.container) + "' is insert-only (a sorted vector is O(n) per update)";
    } else {
      using K = typename Adapter::key_type;
      using V = typename Adapter::mapped_type;
      const uint64_t threads = uint64_t(c.threads);
      const KeySpace keys(c.seed, c.elements + c.ops + 2 * threads, c.order, KeyOf<K>::wide);
      Shards<Adapter> shards(c.threads);
      std::vector<Window> windows(threads);
      for (uint64_t t = 0; t < threads; ++t) windows[t].high = c.elements / threads + (t < c.elements % threads);
      FirstProblem problems;

      auto start = std::chrono::steady_clock::now();
      on_threads(c.threads, [&](int t) {
        Adapter& shard = shards.of_thread(t);
        for (uint64_t j = 0; j < windows[t].high; ++j) {
          uint64_t raw = keys.raw(j * threads + uint64_t(t));
          shard.insert(KeyOf<K>::make(raw), value_of<V>(raw));
        }
      });
      r.fill_ns = since_ns(start);

      std::vector<uint64_t> lookups(threads), replaces(threads);
      memprof::phase_begin();
      start = std::chrono::steady_clock::now();
      on_threads(c.threads, [&](int t) {
        Adapter& shard = shards.of_thread(t);
        Window& w = windows[t];
        Random random(c.seed * 1000003 + uint64_t(t) + 1);
        uint64_t ops = c.ops / threads + (uint64_t(t) < c.ops % threads);
        for (uint64_t k = 0; k < ops; ++k) {
          if (random.next() >> 63) {
            uint64_t oldest = w.low * threads + uint64_t(t);
            if (!shard.erase(KeyOf<K>::make(keys.raw(oldest))))
              problems.report("erase of a live key (index " + std::to_string(oldest) + ") failed");
            uint64_t raw = keys.raw(w.high * threads + uint64_t(t));
            shard.insert(KeyOf<K>::make(raw), value_of<V>(raw));
            ++w.low, ++w.high;
            ++replaces[t];
          } else {
            uint64_t i = (w.low + random.below(w.high - w.low)) * threads + uint64_t(t);
            uint64_t raw = keys.raw(i);
            V value{};
            if (!shard.find(KeyOf<K>::make(raw), value) || value != value_of<V>(raw))
              problems.report("lookup of a live key (index " + std::to_string(i) + ") failed");
            ++lookups[t];
          }
        }
      });
      r.elapsed_ns = since_ns(start);
      r.held_bytes = memprof::current_bytes();
      memprof::phase_end();

      for (uint64_t t = 0; t < threads; ++t) r.lookups += lookups[t], r.replaces += replaces[t];
      r.elements = shards.size();
      if (problems.seen()) {
        r.problem = problems.take();
        return;
      }
      auto live = [&](auto visit) {
        for (uint64_t t = 0; t < threads; ++t)
          for (uint64_t j = windows[t].low; j < windows[t].high; ++j)
            if (!visit(j * threads + t)) return;
      };
      auto gone = [&](auto visit) {  // a sample of at most ~1000 erased keys per thread
        for (uint64_t t = 0; t < threads; ++t) {
          uint64_t step = windows[t].low / 1000 + 1;
          for (uint64_t j = 0; j < windows[t].low; j += step)
            if (!visit(j * threads + t)) return;
        }
      };
      r.problem = check_content(shards, keys, c.elements, live, gone);
    }
  }
};

}  // namespace

bool run_churn(const Config& config, Result& result) { return dispatch<Churn>(config, result); }

}  // namespace allocstamp::maps
