// genome.cpp — the genome app's entry: its sizes (STAMP's inputs), its options,
// and what it reports and verifies; the body is genome_tm.cpp.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <memprof/memprof.h>

#include "command_line.h"
#include "key_names.h"
#include "runtime.h"
#include "genome.h"

namespace allocstamp::stamp {
namespace {

using workload::usage_error;

// The sizes are STAMP's genome inputs (size_genome, genome.h).
// --seed s seeds STAMP's generator (MT19937) with s - 1: the default 1 gives
// STAMP's own seed, 0, hence its gene and segments.
int run_genome(const std::string& app, int argc, char** argv) {
  GenomeConfig c;
  long gene = -1, segments = -1;
  long segment = -1;
  workload::Common common = workload::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--gene-length") gene = workload::whole_number(option, value, 8, 1L << 30);
    else if (option == "--segment-length") segment = workload::whole_number(option, value, 4, 4096);
    else if (option == "--segments") segments = workload::whole_number(option, value, 1, 1L << 32);
    else return false;
    return true;
  });
  size_genome(c, common.size);
  if (gene > 0) c.gene_length = gene;
  if (segment > 0) c.segment_length = segment;
  if (segments > 0) c.segments = segments;
  if (c.segment_length > c.gene_length) usage_error("--segment-length cannot exceed --gene-length");
  c.threads = common.threads;
  c.seed = common.seed;
  const tm::Method method = tm::method_for(common);
  // STAMP prints before it creates the gene: stdout's buffer is its first block.
  std::printf("stamp %s: gene=%ld segment=%ld segments>=%ld\n", app.c_str(), c.gene_length, c.segment_length,
              c.segments);
  GenomeResult r = run_in_build(method, c);
  memprof::metric(keys::elapsed_ns, int64_t(r.elapsed_ns));
  tm::report_transactions();
  memprof::metric("segments_count", r.segments);
  memprof::metric("unique_segments_count", r.unique_segments);
  if (!r.rebuilt) {
    std::fprintf(stderr, "stamp %s: verification failed: the rebuilt sequence is not the gene\n", app.c_str());
    return 3;
  }
  std::printf("stamp %s: threads=%d tm=%s gene=%ld unique_segments=%ld abort_rate=%.4f elapsed_ms=%.2f\n", app.c_str(),
              c.threads, common.method.c_str(), c.gene_length, r.unique_segments, tm::abort_rate(), double(r.elapsed_ns) / 1e6);
  return 0;
}

}  // namespace

const App kGenome = {"genome", "genome options: [--gene-length G] [--segment-length S] [--segments N]", run_genome};
const Registration kGenomeRegistered(kGenome);

}  // namespace allocstamp::stamp
