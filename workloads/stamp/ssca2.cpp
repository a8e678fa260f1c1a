// ssca2.cpp — the ssca2 app's entry: its sizes (STAMP's inputs), its options,
// and what it reports and verifies; the body is ssca2_tm.cpp.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <memprof/memprof.h>

#include "command_line.h"
#include "ssca2.h"

namespace allocstamp::stamp {
namespace {

using tm::usage_error;

// STAMP's ssca2 inputs: small -s13, large -s20 (-i1.0 -u1.0 -l3 -p3).
int run_ssca2(const std::string& app, int argc, char** argv) {
  Ssca2Config c;
  int scale = -1;
  tm::Common common = tm::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--scale") scale = int(tm::whole_number(option, value, 1, 30));
    else if (option == "--max-path") c.max_path = int(tm::whole_number(option, value, 1, 64));
    else if (option == "--max-parallel") c.max_parallel = int(tm::whole_number(option, value, 1, 64));
    else return false;
    return true;
  });
  if (common.size == "tiny") c.scale = 10;
  else if (common.size == "small") c.scale = 13;
  else if (common.size == "medium") c.scale = 17;
  else if (common.size == "large") c.scale = 20;
  else usage_error("--size takes tiny, small, medium or large, not '" + common.size + "'");
  if (scale > 0) c.scale = scale;
  c.threads = common.threads;
  c.seed = common.seed;
  Ssca2Result r = run_in_build(tm::method_for(common), c);
  memprof::metric("elapsed_ns", int64_t(r.elapsed_ns));
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

const App kSsca2 = {{"ssca2", nullptr}, "ssca2 options: [--scale S] [--max-path L] [--max-parallel P]", run_ssca2};

}  // namespace allocstamp::stamp
