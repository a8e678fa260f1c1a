// kmeans.h — STAMP's kmeans as parameters and result: points drawn from
// Gaussian blobs (seeded), clustered by Lloyd's algorithm whose centre sums are
// updated in transactions; the body is compiled per TM build (kmeans_tm.cpp).
#pragma once
#include <cstdint>

#include "app.h"

namespace allocstamp::stamp {

struct KmeansConfig {
  int threads = 1;
  long points = 2048;     // STAMP's random-n2048-d16-c16 (small)
  int dims = 16;
  int blobs = 16;         // natural clusters in the generated input
  int clusters = 40;      // -m/-n: 40 (low), 15 (high)
  double threshold = 0.05;  // -t: stop when fewer than this share of points move
  int max_iterations = 500;
  uint64_t seed = 1;
};

struct KmeansResult {
  uint64_t elapsed_ns = 0;
  int iterations = 0;
  bool consistent = false;
  double moved_share = 0;  // points whose nearest final centre is not their cluster
};

ALLOCSTAMP_STAMP_BUILDS(KmeansConfig, KmeansResult)

}  // namespace allocstamp::stamp
