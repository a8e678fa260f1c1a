// labyrinth.cpp — the labyrinth app's entry: its sizes (STAMP's inputs), its
// options, the maze generator (STAMP's inputs/generate.py), and what it
// reports and verifies; the body is labyrinth_tm.cpp.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <memprof/memprof.h>

#include "command_line.h"
#include "key_names.h"
#include "runtime.h"
#include "labyrinth.h"
#include "python_random.h"

namespace allocstamp::stamp {

// generate.py ran under Python 2, whose random.randint(a, b) is
// a + int(random() * (b - a + 1)); seeded with 0 it gives STAMP's shipped
// files byte for byte (random-x32-y32-z3-n96.txt, random-x512-y512-z7-n512.txt
// and the others). A pair's destination is drawn again while it equals its
// source. Our --seed s seeds it with s - 1, so the default 1 is STAMP's 0.
bool write_labyrinth_input(const LabyrinthConfig& c, int fd) {
  PythonRandom random(uint32_t(c.seed - 1));
  auto randint = [&random](long low, long high) { return low + long(random.random() * double(high - low + 1)); };
  char out[1 << 14];
  std::size_t used = 0;
  bool ok = true;
  auto flush = [&] {
    ok = ok && write(fd, out, used) == ssize_t(used);
    used = 0;
  };
  used += std::size_t(std::snprintf(out, sizeof out,
                                    "# Dimensions (x, y, z)\nd  %i %i %i\n\n"
                                    "# Paths: Sources (x, y, z) -> Destinations (x, y, z)\n",
                                    c.x, c.y, c.z));
  for (int i = 0; i < c.paths; ++i) {
    long src[3] = {randint(0, c.x - 1), randint(0, c.y - 1), randint(0, c.z - 1)};
    long dst[3];
    do {
      dst[0] = randint(0, c.x - 1), dst[1] = randint(0, c.y - 1), dst[2] = randint(0, c.z - 1);
    } while (dst[0] == src[0] && dst[1] == src[1] && dst[2] == src[2]);
    if (sizeof out - used < 128) flush();
    used += std::size_t(std::snprintf(out + used, sizeof out - used, "p   %3ld %3ld %1ld   %3ld %3ld %1ld\n", src[0], src[1],
                                      src[2], dst[0], dst[1], dst[2]));
  }
  flush();
  return ok;
}

namespace {

using workload::by_size;
using workload::usage_error;

// STAMP's labyrinth inputs: small a 32x32x3 maze with 96 paths, large 512x512x7 with 512.
int run_labyrinth(const std::string& app, int argc, char** argv) {
  LabyrinthConfig c;
  int x = -1, y = -1, z = -1, paths = -1;
  std::string write_maze;
  workload::Common common = workload::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--x") x = int(workload::whole_number(option, value, 2, 4096));
    else if (option == "--y") y = int(workload::whole_number(option, value, 2, 4096));
    else if (option == "--z") z = int(workload::whole_number(option, value, 1, 64));
    else if (option == "--paths") paths = int(workload::whole_number(option, value, 1, 1 << 20));
    else if (option == "--write-maze") write_maze = value;
    else return false;
    return true;
  });
  // tiny, small, medium, large
  c.x = c.y = by_size(common.size, 16, 32, 128, 512);
  c.z = by_size(common.size, 2, 3, 5, 7);
  c.paths = by_size(common.size, 16, 96, 256, 512);
  if (x > 0) c.x = x;
  if (y > 0) c.y = y;
  if (z > 0) c.z = z;
  if (paths > 0) c.paths = paths;
  c.threads = common.threads;
  c.seed = common.seed;
  if (!write_maze.empty()) {  // the maze file only (STAMP's input format), no run
    int fd = open(write_maze.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || !write_labyrinth_input(c, fd) || close(fd) != 0) {
      std::perror(("stamp " + app + ": cannot write " + write_maze).c_str());
      return 1;
    }
    return 0;
  }
  LabyrinthResult r = run_in_build(tm::method_for(common), c);
  memprof::metric(keys::elapsed_ns, int64_t(r.elapsed_ns));
  tm::report_transactions();
  memprof::metric("paths_routed_count", r.routed);
  memprof::metric("paths_unroutable_count", r.unroutable);
  memprof::metric("reroutes_count", r.restarts);
  if (!r.consistent) {
    std::fprintf(stderr,
                 "stamp %s: verification failed: a path is broken, does not join its pair's endpoints, or two paths "
                 "share a cell\n",
                 app.c_str());
    return 3;
  }
  std::printf("stamp %s: threads=%d tm=%s routed=%ld unroutable=%ld reroutes=%ld abort_rate=%.4f elapsed_ms=%.2f\n",
              app.c_str(), c.threads, common.method.c_str(), r.routed, r.unroutable, r.restarts, tm::abort_rate(),
              double(r.elapsed_ns) / 1e6);
  return 0;
}

}  // namespace

const App kLabyrinth = {"labyrinth",
                        "labyrinth options: [--x X] [--y Y] [--z Z] [--paths N] [--write-maze FILE]",
                        run_labyrinth};
const Registration kLabyrinthRegistered(kLabyrinth);

}  // namespace allocstamp::stamp
