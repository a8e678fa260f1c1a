// ssca2.cpp — the ssca2 app's entry: its sizes (STAMP's inputs), its options,
// and what it reports and verifies; the body is ssca2_tm.cpp.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <memprof/memprof.h>

#include "command_line.h"
#include "key_names.h"
#include "runtime.h"
#include "ssca2.h"

namespace allocstamp::stamp {
namespace {

using workload::by_size;
using workload::usage_error;

float probability(const std::string& option, const char* text) {
  char* end = nullptr;
  double v = std::strtod(text, &end);
  if (!end || *end != '\0' || !(v >= 0 && v <= 1)) usage_error(option + " takes a probability from 0 to 1, not '" + text + "'");
  return float(v);
}

// STAMP's ssca2 inputs: small -s13, large -s20 (-i1.0 -u1.0 -l3 -p3); tiny -s12, medium -s17.
int run_ssca2(const std::string& app, int argc, char** argv) {
  Ssca2Config c;
  int scale = -1;
  workload::Common common = workload::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--scale") scale = int(workload::whole_number(option, value, 1, 30));
    else if (option == "--max-path") c.max_path = int(workload::whole_number(option, value, 1, 64));
    else if (option == "--max-parallel") c.max_parallel = int(workload::whole_number(option, value, 1, 64));
    else if (option == "--unidirectional") c.unidirectional = probability(option, value);
    else if (option == "--interclique") c.interclique = probability(option, value);
    else if (option == "--int-weights") c.int_weights = probability(option, value);
    else return false;
    return true;
  });
  // tiny is the least scale at which STAMP's generator keeps within its buffers.
  c.scale = by_size(common.size, 12, 13, 17, 20);
  if (scale > 0) c.scale = scale;
  if (c.scale < 3 || c.scale > 30) usage_error("--scale takes 3 to 30");
  c.threads = common.threads;
  c.seed = common.seed;  // 1 (the default) is STAMP's generator seed 0
  // STAMP prints its parameters before it starts (its stdout buffer is its first block).
  std::printf("stamp %s: scale=%d max_parallel=%d unidirectional=%g interclique=%g int_weights=%g\n", app.c_str(),
              c.scale, c.max_parallel, double(c.unidirectional), double(c.interclique), double(c.int_weights));
  Ssca2Result r = run_in_build(tm::method_for(common), c);
  memprof::metric(keys::elapsed_ns, int64_t(r.elapsed_ns));
  tm::report_transactions();
  memprof::metric("edges_count", r.edges);
  if (!r.consistent) {
    std::fprintf(stderr, "stamp %s: verification failed: the adjacency arrays do not hold exactly the edges\n", app.c_str());
    return 3;
  }
  std::printf("stamp %s: threads=%d tm=%s vertices=%ld edges=%ld abort_rate=%.4f elapsed_ms=%.2f\n", app.c_str(),
              c.threads, common.method.c_str(), r.vertices, r.edges, tm::abort_rate(), double(r.elapsed_ns) / 1e6);
  return 0;
}

}  // namespace

const App kSsca2 = {"ssca2", "ssca2 options: [--scale S] [--max-path L] [--max-parallel P] [--unidirectional U] [--interclique I] [--int-weights W]", run_ssca2};
const Registration kSsca2Registered(kSsca2);

}  // namespace allocstamp::stamp
