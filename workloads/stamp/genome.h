// genome.h — STAMP's genome (gene sequencing from overlapping segments) as
// parameters and result; the body is compiled per TM build (genome_tm.cpp).
#pragma once
#include <cstdint>
#include <string>

#include "app.h"
#include "command_line.h"

namespace allocstamp::stamp {

struct GenomeConfig {
  int threads = 1;
  long gene_length = 256;   // -g
  long segment_length = 16; // -s
  long segments = 16384;    // -n: segments drawn at random (more are added to cover the gene)
  uint64_t seed = 1;        // STAMP's generator is seeded with seed - 1 (STAMP: 0)
};

// STAMP's genome inputs: small -g256 -s16 -n16384, large -g16384 -s64 -n16777216
// (tiny and medium are ours). Here rather than in genome.cpp so that a unit test
// (tests/unit/workload_sizes_test.cpp) holds them to STAMP's command lines
// without running the large one (a gigabyte of segments).
inline void size_genome(GenomeConfig& c, const std::string& size) {
  // tiny, small, medium, large
  c.gene_length = workload::by_size<long>(size, 128, 256, 4096, 16384);
  c.segment_length = workload::by_size<long>(size, 16, 16, 32, 64);
  c.segments = workload::by_size<long>(size, 1024, 16384, 262144, 16777216);
}

struct GenomeResult {
  uint64_t elapsed_ns = 0;
  long segments = 0;         // drawn and added
  long unique_segments = 0;
  bool rebuilt = false;      // the sequence equals the gene
};

ALLOCSTAMP_STAMP_BUILDS(GenomeConfig, GenomeResult)

}  // namespace allocstamp::stamp
