// genome.h — STAMP's genome (gene sequencing from overlapping segments) as
// parameters and result; the body is compiled per TM build (genome_tm.cpp).
#pragma once
#include <cstdint>

#include "app.h"

namespace allocstamp::stamp {

struct GenomeConfig {
  int threads = 1;
  long gene_length = 256;   // -g
  long segment_length = 16; // -s
  long segments = 16384;    // -n: segments drawn at random (more are added to cover the gene)
  uint64_t seed = 1;        // STAMP's generator is seeded with seed - 1 (STAMP: 0)
};

struct GenomeResult {
  uint64_t elapsed_ns = 0;
  long segments = 0;         // drawn and added
  long unique_segments = 0;
  bool rebuilt = false;      // the sequence equals the gene
};

ALLOCSTAMP_STAMP_BUILDS(GenomeConfig, GenomeResult)

}  // namespace allocstamp::stamp
