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
  uint64_t seed = 1;  // the maze generator's seed is seed - 1 (STAMP's files: 0)
};

struct LabyrinthResult {
  uint64_t elapsed_ns = 0;
  long routed = 0, unroutable = 0, restarts = 0;
  bool consistent = false;
};

// Writes STAMP's inputs/generate.py output for the config (a maze file: its
// dimensions and `paths` source/destination pairs) to the descriptor with
// write() and a stack buffer, allocating nothing; false on a write error.
bool write_labyrinth_input(const LabyrinthConfig& c, int fd);

ALLOCSTAMP_STAMP_BUILDS(LabyrinthConfig, LabyrinthResult)

}  // namespace allocstamp::stamp
