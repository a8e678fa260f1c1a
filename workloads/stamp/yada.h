// yada.h — STAMP's yada (Delaunay mesh refinement, Ruppert's algorithm) as
// parameters and result; the body is compiled per TM build (yada_tm.cpp), the
// input mesh is made and written by yada_input.cpp.
#pragma once
#include <cstdint>

#include "app.h"

namespace allocstamp::stamp {

struct YadaConfig {
  int threads = 1;
  long points = 633;       // vertices of the input mesh (4 of them the square's corners)
  double angle = 20.0;     // -a: the minimum angle every triangle must reach
  uint64_t seed = 1;       // the points' generator
  const char* input = "";  // the Triangle files' prefix (PREFIX.node, .ele, .poly) the body reads
};

struct YadaResult {
  uint64_t elapsed_ns = 0;   // the refinement (STAMP's timed phase)
  long initial_elements = 0; // segments and triangles read
  long initial_bad = 0;      // elements to refine at the start
  long final_elements = 0;   // initial + STAMP's count of elements added
  long processed = 0;        // elements taken from the work heap and refined
  // mesh_check, run after the measured phase: every element reachable from
  // the root, each triangle's minimum angle at least the bound, neighbours
  // consistent (each lists the other and they share an edge).
  long reachable_elements = 0;
  long bad_triangles = 0;
  long false_neighbours = 0;
  bool valid = false;
};

ALLOCSTAMP_STAMP_BUILDS(YadaConfig, YadaResult)

// The input mesh: a Delaunay triangulation of `points` vertices — the unit
// square's corners, evenly spaced vertices along its sides (about sqrt(points)
// / 2 per side) and the rest drawn uniformly inside from `seed` — written as
// Triangle writes it (PREFIX.node, PREFIX.ele and PREFIX.poly, the edges on
// the sides as the boundary segments), which is how STAMP's yada reads its
// inputs. Allocates only inside a memprof ignore scope, so the figures do
// not see it. False (errno set) when a file cannot be written.
bool write_yada_mesh(long points, uint64_t seed, const char* prefix);

}  // namespace allocstamp::stamp
