// labyrinth.cpp — the labyrinth app's entry: its sizes (STAMP's inputs), its options,
// and what it reports and verifies; the body is labyrinth_tm.cpp.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <memprof/memprof.h>

#include "command_line.h"
#include "labyrinth.h"

namespace allocstamp::stamp {
namespace {

using tm::usage_error;

// STAMP's labyrinth inputs: small random-x32-y32-z3-n96.txt (a 32x32x3 maze,
// 96 paths), large random-x512-y512-z7-n512.txt; tiny (16x16x2, 16 paths) and
// medium (128x128x5, 256 paths) are other files of the same generator.
// --seed s seeds the generator (Python's random) with s - 1: the default 1 gives
// generate.py's seed, 0, hence STAMP's files.
int run_labyrinth(const std::string& app, int argc, char** argv) {
  LabyrinthConfig c;
  int x = -1, y = -1, z = -1, paths = -1;
  tm::Common common = tm::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--x") x = int(tm::whole_number(option, value, 2, 4096));
    else if (option == "--y") y = int(tm::whole_number(option, value, 2, 4096));
    else if (option == "--z") z = int(tm::whole_number(option, value, 1, 64));
    else if (option == "--paths") paths = int(tm::whole_number(option, value, 1, 1 << 20));
    else return false;
    return true;
  });
  if (common.size == "tiny") c.x = 16, c.y = 16, c.z = 2, c.paths = 16;
  else if (common.size == "small") c.x = 32, c.y = 32, c.z = 3, c.paths = 96;
  else if (common.size == "medium") c.x = 128, c.y = 128, c.z = 5, c.paths = 256;
  else if (common.size == "large") c.x = 512, c.y = 512, c.z = 7, c.paths = 512;
  else usage_error("--size takes tiny, small, medium or large, not '" + common.size + "'");
  if (x > 0) c.x = x;
  if (y > 0) c.y = y;
  if (z > 0) c.z = z;
  if (paths > 0) c.paths = paths;
  if (common.seed > 0xffffffffull) usage_error("labyrinth takes a --seed below 2^32");
  c.threads = common.threads;
  c.input_seed = uint32_t(common.seed - 1);
  LabyrinthResult r = run_in_build(tm::method_for(common), c);
  memprof::metric("elapsed_ns", int64_t(r.elapsed_ns));
  tm::report_transactions();
  memprof::metric("paths_routed_count", r.routed);
  memprof::metric("paths_unroutable_count", r.unroutable);
  memprof::metric("reroutes_count", r.retries);
  if (!r.consistent) {
    std::fprintf(stderr, "stamp %s: verification failed: a path is broken or two paths share a cell\n", app.c_str());
    return 3;
  }
  std::printf("stamp %s: threads=%d tm=%s routed=%ld unroutable=%ld reroutes=%ld abort_rate=%.4f elapsed_ms=%.2f\n",
              app.c_str(), c.threads, common.method.c_str(), r.routed, r.unroutable, r.retries, tm::abort_rate(),
              double(r.elapsed_ns) / 1e6);
  return 0;
}

}  // namespace

const App kLabyrinth = {{"labyrinth", nullptr}, "labyrinth options: [--x X] [--y Y] [--z Z] [--paths N]", run_labyrinth};

}  // namespace allocstamp::stamp
