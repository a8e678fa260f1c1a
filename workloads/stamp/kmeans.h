// kmeans.h — STAMP's kmeans as parameters and result: the points of STAMP's
// generated input files (inputs/generate.py, made again number for number),
// clustered by Lloyd's algorithm whose centre sums are updated in
// transactions; the body is kmeans_tm.cpp.
#pragma once
#include <cstdint>

#include "app.h"

namespace allocstamp::stamp {

struct KmeansConfig {
  int threads = 1;
  long points = 2048;        // STAMP's random-n2048-d16-c16 (small)
  int dims = 16;
  int centres = 16;          // natural clusters of the generated input (the file's c16)
  int clusters = 40;         // -m/-n: 40 (low), 15 (high)
  float threshold = 0.05f;   // -t: stop when no more than this share of points moves
  uint32_t input_seed = 0;   // generate.py's random.seed(0)
};

struct KmeansResult {
  uint64_t elapsed_ns = 0;
  int iterations = 0;
  bool consistent = false;
  double worst_error = 0;  // largest relative difference of a final centre from its members' mean
};

ALLOCSTAMP_STAMP_BUILDS(KmeansConfig, KmeansResult)

}  // namespace allocstamp::stamp
