// ssca2.h — STAMP's ssca2 (kernel 1 of the SSCA#2 graph benchmark) as
// parameters and result: build adjacency arrays from a seeded list of
// weighted, directed edges; the body is compiled per TM build (ssca2_tm.cpp).
#pragma once
#include <cstdint>

#include "app.h"

namespace allocstamp::stamp {

struct Ssca2Config {
  int threads = 1;
  int scale = 13;         // -s: 2^scale vertices
  int max_path = 3;       // -l: edges within a clique link vertices at most this far apart
  int max_parallel = 3;   // -p: parallel edges between a pair, at most
  uint64_t seed = 1;
};

struct Ssca2Result {
  uint64_t elapsed_ns = 0;
  long vertices = 0, edges = 0;
  bool consistent = false;
};

ALLOCSTAMP_STAMP_BUILDS(Ssca2Config, Ssca2Result)

}  // namespace allocstamp::stamp
