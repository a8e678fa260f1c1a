// labyrinth.h — STAMP's labyrinth (Lee routing in a 3-D grid) as parameters
// and result; the body is compiled per TM build (labyrinth_tm.cpp).
#pragma once
#include <cstdint>

#include "app.h"

namespace allocstamp::stamp {

struct LabyrinthConfig {
  int threads = 1;
  int x = 32, y = 32, z = 3;  // STAMP's random-x32-y32-z3-n96 (small)
  int paths = 96;
  uint32_t input_seed = 0;  // generate.py's random.seed(0)
};

struct LabyrinthResult {
  uint64_t elapsed_ns = 0;
  long routed = 0, unroutable = 0, retries = 0;
  bool consistent = false;
};

ALLOCSTAMP_STAMP_BUILDS(LabyrinthConfig, LabyrinthResult)

}  // namespace allocstamp::stamp
