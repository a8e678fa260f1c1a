// kmeans.cpp — the kmeans app's entry: its sizes (STAMP's inputs), its options,
// and what it reports and verifies; the body is kmeans_tm.cpp.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <memprof/memprof.h>

#include "command_line.h"
#include "key_names.h"
#include "runtime.h"
#include "kmeans.h"

namespace allocstamp::stamp {
namespace {

using workload::by_size;
using workload::usage_error;

// STAMP's kmeans inputs: small random-n2048-d16-c16.txt -t0.05, large
// random-n65536-d32-c16.txt -t0.00001 (tiny and medium: other files of the
// same generator; STAMP ships n16384-d24-c16 too).
void size_kmeans(KmeansConfig& c, const std::string& size) {
  // tiny, small, medium, large
  c.points = by_size<long>(size, 512, 2048, 16384, 65536);
  c.dims = by_size(size, 8, 16, 24, 32);
  c.threshold = by_size(size, c.threshold, c.threshold, c.threshold, 0.00001f);
}

int run_kmeans(const std::string& app, int argc, char** argv) {
  KmeansConfig c;
  c.clusters = app == "kmeans-low" ? 40 : 15;  // -m40 -n40 / -m15 -n15
  long points = -1;
  int dims = -1;
  double threshold = -1;
  workload::Common common = workload::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--points") points = workload::whole_number(option, value, 1, 1L << 24);
    else if (option == "--dims") dims = int(workload::whole_number(option, value, 1, 1024));
    else if (option == "--centres") c.centres = int(workload::whole_number(option, value, 1, 64));
    else if (option == "--clusters") c.clusters = int(workload::whole_number(option, value, 1, 4096));
    else if (option == "--threshold") threshold = std::atof(value);
    else return false;
    return true;
  });
  size_kmeans(c, common.size);
  if (points > 0) c.points = points;
  if (dims > 0) c.dims = dims;
  if (threshold >= 0) c.threshold = float(threshold);
  if (c.clusters > c.points) usage_error("--clusters cannot exceed the number of points");
  if (common.seed > 0xffffffffull) usage_error("kmeans takes a --seed below 2^32");
  c.threads = common.threads;
  c.input_seed = uint32_t(common.seed - 1);  // --seed 1 (the default) is generate.py's seed 0: STAMP's files
  KmeansResult r = run_in_build(tm::method_for(common), c);
  memprof::metric(keys::elapsed_ns, int64_t(r.elapsed_ns));
  tm::report_transactions();
  memprof::metric("iterations_count", r.iterations);
  if (!r.consistent) {
    std::fprintf(stderr, "stamp %s: verification failed: a final centre is %.3g away from its members' mean\n",
                 app.c_str(), r.worst_error);
    return 3;
  }
  std::printf("stamp %s: threads=%d tm=%s points=%ld iterations=%d abort_rate=%.4f elapsed_ms=%.2f\n", app.c_str(),
              c.threads, common.method.c_str(), c.points, r.iterations, tm::abort_rate(), double(r.elapsed_ns) / 1e6);
  return 0;
}

}  // namespace

constexpr char kKmeansOptions[] = "kmeans options: [--points N] [--dims D] [--centres C] [--clusters K] [--threshold T]";
const App kKmeansLow = {"kmeans-low", kKmeansOptions, run_kmeans};
const Registration kKmeansLowRegistered(kKmeansLow);
const App kKmeansHigh = {"kmeans-high", kKmeansOptions, run_kmeans};
const Registration kKmeansHighRegistered(kKmeansHigh);

}  // namespace allocstamp::stamp
