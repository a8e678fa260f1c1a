// config.h — what an intset run is asked to do and what it found, shared by
// main and the three TM builds of the benchmark body.
#pragma once
#include <cstdint>
#include <string>

namespace allocstamp::intset {

enum class Structure { list, hash, rbtree, skiplist };

struct Config {
  Structure structure = Structure::list;
  int threads = 1;
  long initial = 4096;     // elements before the measured phase
  long range = 8192;       // keys are drawn from [0, range)
  int update_percent = 20; // share of operations that insert or remove
  long ops = 20000;        // operations per thread (--size small)
  uint64_t seed = 1;
};

struct Result {
  uint64_t elapsed_ns = 0;
  long expected_size = 0;
  long final_size = 0;
  bool valid = false;
  uint64_t inserts = 0, removes = 0, lookups = 0;
};

}  // namespace allocstamp::intset
