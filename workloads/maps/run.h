// run.h — what a maps app is asked to do and what it reports, and the two apps:
// insert (fill a container, the 2013 memory-profile experiment) and churn (erase,
// insert and look up at a steady size, to show fragmentation over time).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "command_line.h"
#include "keys.h"

namespace allocstamp::maps {

struct Config {
  std::string_view container;  // points into argv: no heap block live while the heap is measured
  std::string key = "u32";  // u32 | u64 | string
  Order order = Order::random;
  uint64_t elements = 0;
  uint64_t ops = 0;  // churn: operations in the measured phase, all threads together
  int threads = 1;
  uint64_t seed = 1;
};

struct Result {
  uint64_t elapsed_ns = 0;  // the measured phase
  uint64_t fill_ns = 0;     // churn: filling to the steady size, before the phase
  uint64_t elements = 0;    // held at the end of the measured phase
  uint64_t lookups = 0, replaces = 0;
  int64_t held_bytes = -1;  // requested bytes live at the phase's end (-1 without memprof)
  int64_t rss_baseline_kb = -1;  // insert: the process's RSS just before the fill (-1 when unknown)
  std::string problem;      // empty when the content checked out
};

// The elements --size means to an app (the usage text's): insert 10,000 / 256,000 /
// 1,024,000 / 8,192,000 (large: the 2013 STX study's count), churn 10,000 / 100,000 /
// 1,000,000 / 8,192,000. Here rather than in main.cpp so that a unit test
// (tests/unit/workload_sizes_test.cpp) holds large to the study without filling it.
inline uint64_t elements_for(const std::string& app, const std::string& size) {
  bool insert = app == "insert";
  return workload::by_size<uint64_t>(size, 10'000, insert ? 256'000 : 100'000, insert ? 1'024'000 : 1'000'000,
                                     8'192'000);
}

// Both return false when the container is not one of kContainers or the key type is
// unknown; `problem` then says why. Churn also refuses containers without erase.
bool run_insert(const Config& config, Result& result);
// The process's resident set now, in KiB, from /proc/self/statm, read without
// allocating (a count the figures hold exact); -1 when unreadable.
int64_t resident_kb();
bool run_churn(const Config& config, Result& result);

}  // namespace allocstamp::maps
