// ssca2.h — STAMP's ssca2 (kernel 1 of the SSCA#2 graph benchmark) as
// parameters and result: STAMP's generated graph of cliques, turned into
// adjacency arrays; the body is ssca2_tm.cpp.
#pragma once
#include <cstdint>

#include "app.h"

namespace allocstamp::stamp {

struct Ssca2Config {
  int threads = 1;
  int scale = 13;               // -s: 2^scale vertices, cliques of up to 2^(scale/3)
  int max_path = 3;             // -l: kernel 3's subgraph path length (kernel 1 does not use it)
  int max_parallel = 3;         // -p: parallel edges between a pair, at most
  float unidirectional = 1.0f;  // -u: probability that a clique's pair is joined one way only
  float interclique = 1.0f;     // -i: probability of an edge to the vertex at distance 1 (halved at 2, 4, ...)
  float int_weights = 0.6f;     // -w: share of edges with an integer weight (else a string)
  uint64_t seed = 1;            // 1: STAMP's generator seed 0
};

struct Ssca2Result {
  uint64_t elapsed_ns = 0;
  long vertices = 0, edges = 0;
  bool consistent = false;
};

ALLOCSTAMP_STAMP_BUILDS(Ssca2Config, Ssca2Result)

}  // namespace allocstamp::stamp
