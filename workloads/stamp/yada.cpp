// yada.cpp — the yada app's entry: its sizes (STAMP's inputs: a mesh of 633
// points at angle 20 small, 1,000,000 at 15 large), its options, the mesh it
// makes and writes for the body to read (yada_input.cpp), and what it
// reports and verifies; the body is yada_tm.cpp.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <memprof/memprof.h>

#include "command_line.h"
#include "key_names.h"
#include "runtime.h"
#include "yada.h"

namespace allocstamp::stamp {
namespace {

using workload::by_size;
using workload::usage_error;

// A folder of its own for the mesh files (they are read inside the measured
// phase, as STAMP reads its inputs), removed after the run. Paths live in
// arrays: a std::string this long would be a heap block STAMP does not have.
struct MeshFolder {
  char path[512];
  char prefix[600];
  bool made = false;
  MeshFolder() {
    const char* dir = std::getenv("TMPDIR");
    std::snprintf(path, sizeof path, "%s/allocstamp-yada-XXXXXX", dir && *dir ? dir : "/tmp");
    made = mkdtemp(path) != nullptr;
    std::snprintf(prefix, sizeof prefix, "%s/mesh", path);
  }
  ~MeshFolder() {
    if (!made) return;
    char name[700];
    for (const char* suffix : {".node", ".ele", ".poly"}) {
      std::snprintf(name, sizeof name, "%s%s", prefix, suffix);
      unlink(name);
    }
    rmdir(path);
  }
};

int run_yada(const std::string& app, int argc, char** argv) {
  YadaConfig c;
  long points = -1;
  double angle = -1;
  std::string write_mesh;
  workload::Common common = workload::parse_common(argc, argv, [&](const std::string& option, const char* value) {
    if (option == "--points") points = workload::whole_number(option, value, 4, 1L << 26);
    else if (option == "--angle") angle = double(workload::whole_number(option, value, 1, 30));
    else if (option == "--write-mesh") write_mesh = value;
    else return false;
    return true;
  });
  // STAMP's inputs: 633.2 at -a20 (its simulator input), ttimeu1000000.2 at
  // -a15; medium is ttimeu10000.2's size.
  // tiny, small, medium, large
  c.points = by_size<long>(common.size, 100, 633, 10000, 1000000);
  c.angle = by_size<double>(common.size, 20, 20, 20, 15);
  if (points > 0) c.points = points;
  if (angle > 0) c.angle = angle;
  c.threads = common.threads;
  c.seed = common.seed;
  if (!write_mesh.empty()) {  // the mesh files only (STAMP's input format), no run
    if (!write_yada_mesh(c.points, c.seed, write_mesh.c_str())) {
      std::fprintf(stderr, "stamp %s: cannot write %s.node/.ele/.poly: %s\n", app.c_str(), write_mesh.c_str(),
                   std::strerror(errno));
      return 1;
    }
    return 0;
  }
  const tm::Method method = tm::method_for(common);
  // STAMP prints before it reads the mesh: stdout's buffer is its first block.
  std::printf("stamp %s: points=%ld angle=%g\n", app.c_str(), c.points, c.angle);
  MeshFolder folder;
  if (!folder.made || !write_yada_mesh(c.points, c.seed, folder.prefix)) {
    std::fprintf(stderr, "stamp %s: cannot write the mesh files in %s: %s\n", app.c_str(), folder.path,
                 std::strerror(errno));
    return 1;
  }
  c.input = folder.prefix;
  YadaResult r = run_in_build(method, c);
  memprof::metric(keys::elapsed_ns, int64_t(r.elapsed_ns));
  tm::report_transactions();
  memprof::metric("initial_elements_count", r.initial_elements);
  memprof::metric("initial_bad_count", r.initial_bad);
  memprof::metric("final_elements_count", r.final_elements);
  memprof::metric("processed_count", r.processed);
  if (!r.valid) {
    std::fprintf(stderr,
                 "stamp %s: verification failed: %ld elements reachable of %ld, %ld triangles under %g degrees, %ld "
                 "false neighbours\n",
                 app.c_str(), r.reachable_elements, r.final_elements, r.bad_triangles, c.angle, r.false_neighbours);
    return 3;
  }
  std::printf("stamp %s: threads=%d tm=%s elements=%ld->%ld processed=%ld abort_rate=%.4f elapsed_ms=%.2f\n",
              app.c_str(), c.threads, common.method.c_str(), r.initial_elements, r.final_elements, r.processed,
              tm::abort_rate(), double(r.elapsed_ns) / 1e6);
  return 0;
}

}  // namespace

const App kYada = {"yada", "yada options: [--points N] [--angle A] [--write-mesh PREFIX]", run_yada};
const Registration kYadaRegistered(kYada);

}  // namespace allocstamp::stamp
