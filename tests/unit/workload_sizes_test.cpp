// workload_sizes_test — the sizes no test runs (large STAMP and maps inputs take
// gigabytes and minutes), as the workloads resolve them, against the command
// lines they are documented to be: STAMP's genome inputs (scripts/stamp_figures.py,
// which made workloads/stamp/reference/large.csv) and the 2013 STX study's
// element count (docs/workloads.md, the maps usage text).
#include <gtest/gtest.h>

#include <cstdint>

#include "genome.h"
#include "run.h"

namespace allocstamp {
namespace {

TEST(GenomeSizes, SmallAndLargeAreStampsInputs) {
  struct Input {
    const char* size;
    long gene, segment, segments;  // -g -s -n
  };
  for (const Input& input : {Input{"small", 256, 16, 16384}, Input{"large", 16384, 64, 16777216}}) {
    stamp::GenomeConfig c;
    stamp::size_genome(c, input.size);
    EXPECT_EQ(c.gene_length, input.gene) << input.size;
    EXPECT_EQ(c.segment_length, input.segment) << input.size;
    EXPECT_EQ(c.segments, input.segments) << input.size;
  }
}

TEST(MapsSizes, LargeIsTheStxStudysEightMillionElements) {
  EXPECT_EQ(maps::elements_for("insert", "large"), uint64_t{8'192'000});
  EXPECT_EQ(maps::elements_for("churn", "large"), uint64_t{8'192'000});
  // Each app's sizes grow up the ladder.
  for (const char* app : {"insert", "churn"}) {
    uint64_t below = 0;
    for (const char* size : {"tiny", "small", "medium", "large"}) {
      EXPECT_GT(maps::elements_for(app, size), below) << app << " " << size;
      below = maps::elements_for(app, size);
    }
  }
}

}  // namespace
}  // namespace allocstamp
